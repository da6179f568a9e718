//! The exports of a run: JSON (`json`, the one every mode has, and the one `punctual report`
//! reads back), and for the wait table and the scale mode CSV and Markdown. Exporters only
//! turn a report into bytes; `output::destinations` writes them.

pub mod csv;
pub mod json;
pub mod markdown;

use serde_json::Value;

use crate::bench::frontier::FrontierReport;
use crate::bench::threads::ThreadsReport;
use crate::bench::{Report, RunMode};

/// The version of the export's layout, its `schema_version`: raised when a field changes
/// meaning or goes, so that a reader can tell. A field added with a default is no change.
/// Exports from before it was written read as 0, and are read as version 1 is.
pub const SCHEMA_VERSION: u32 = 1;

/// Any mode's JSON export, as the bench writes it and `punctual report` reads it back: the
/// same structs both ways. `run.mode` tells which it is.
#[derive(Debug, Clone)]
pub enum AnyExport {
    /// A wait table's or a scale run's (`run.mode` `single`, `grid` or `scale`).
    Table(Report),
    Frontier(FrontierReport),
    Threads(ThreadsReport),
}

impl AnyExport {
    /// Reads an export of any mode and any schema version up to this one.
    pub fn read(value: Value) -> anyhow::Result<AnyExport> {
        let version = value
            .get("schema_version")
            .map_or(Some(0), Value::as_u64)
            .ok_or_else(|| anyhow::anyhow!("`schema_version` is not a number"))?;
        if version > u64::from(SCHEMA_VERSION) {
            anyhow::bail!(
                "it is of schema version {version}, from a newer punctual: this one reads up to {SCHEMA_VERSION}"
            );
        }
        let mode = value
            .pointer("/run/mode")
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("it has no `run.mode`"))?;
        let mode: RunMode = serde_json::from_value(mode)?;
        Ok(match mode {
            RunMode::Single | RunMode::Grid | RunMode::Scale => {
                AnyExport::Table(serde_json::from_value(value)?)
            }
            RunMode::Frontier => AnyExport::Frontier(serde_json::from_value(value)?),
            RunMode::Threads => AnyExport::Threads(serde_json::from_value(value)?),
            RunMode::Server => anyhow::bail!(
                "it is a server workload's export (`punctual scale --workload server`), which this command does not read yet"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode's export as punctual wrote it before `schema_version` (made with the mock
    /// clock, kept as they were).
    const VERSION_0: [(&str, &str); 5] = [
        (
            "bench",
            include_str!("../../tests/fixtures/exports-0/bench.json"),
        ),
        (
            "bench-grid",
            include_str!("../../tests/fixtures/exports-0/bench-grid.json"),
        ),
        (
            "frontier",
            include_str!("../../tests/fixtures/exports-0/frontier.json"),
        ),
        (
            "threads",
            include_str!("../../tests/fixtures/exports-0/threads.json"),
        ),
        (
            "scale",
            include_str!("../../tests/fixtures/exports-0/scale.json"),
        ),
    ];

    fn written(export: &AnyExport) -> Value {
        match export {
            AnyExport::Table(r) => serde_json::to_value(r),
            AnyExport::Frontier(r) => serde_json::to_value(r),
            AnyExport::Threads(r) => serde_json::to_value(r),
        }
        .unwrap()
    }

    /// An older export reads as the structs the bench writes, and what they write again is
    /// the old file with `schema_version` (and a field added since, with its default) on
    /// top: nothing of the old file is lost or changed.
    #[test]
    fn every_older_export_reads_and_keeps_what_it_held() {
        for (name, text) in VERSION_0 {
            let old: Value = serde_json::from_str(text).unwrap();
            let export = AnyExport::read(old.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut again = written(&export);
            assert_eq!(again["schema_version"], 0, "{name}");
            let Value::Object(fields) = &mut again else {
                panic!("{name}: not an object")
            };
            fields.remove("schema_version");
            assert_eq!(
                old,
                subset_of(&old, &again),
                "{name}: every field of the old file, as it was"
            );
            let kinds = [
                (
                    matches!(export, AnyExport::Table(_)),
                    ["bench", "bench-grid", "scale"].as_slice(),
                ),
                (matches!(export, AnyExport::Frontier(_)), &["frontier"]),
                (matches!(export, AnyExport::Threads(_)), &["threads"]),
            ];
            assert!(
                kinds.iter().any(|(is, names)| *is && names.contains(&name)),
                "{name}: read as the wrong mode"
            );
        }
    }

    /// `again` with only the fields `old` has, recursively: the fields added since are left
    /// out, so that what is compared is what the old file held.
    fn subset_of(old: &Value, again: &Value) -> Value {
        match (old, again) {
            (Value::Object(old), Value::Object(again)) => Value::Object(
                old.keys()
                    .filter_map(|k| Some((k.clone(), subset_of(&old[k], again.get(k)?))))
                    .collect(),
            ),
            (Value::Array(old), Value::Array(again)) if old.len() == again.len() => Value::Array(
                old.iter()
                    .zip(again)
                    .map(|(o, a)| subset_of(o, a))
                    .collect(),
            ),
            _ => again.clone(),
        }
    }

    #[test]
    fn an_export_from_a_newer_punctual_is_refused_with_its_version() {
        let mut value: Value = serde_json::from_str(VERSION_0[0].1).unwrap();
        value["schema_version"] = (SCHEMA_VERSION + 1).into();
        let error = AnyExport::read(value).unwrap_err().to_string();
        assert!(error.contains("newer punctual"), "{error}");
    }

    #[test]
    fn an_export_with_no_mode_is_refused() {
        let error = AnyExport::read(serde_json::json!({"run": {}}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("run.mode"), "{error}");
    }
}
