use std::fmt::Write;

use super::Exporter;
use crate::bench::{Mode, Report};

/// One row per method and wait; nanoseconds throughout.
pub struct CsvExporter;

const HEADER: &str = "method,ours,wait_ns,mode,samples,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,early,early_max_ns,missed,cpu_ns_per_wait,cpu_share";

impl Exporter for CsvExporter {
    fn serialize(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        let mut out = String::from(HEADER);
        out.push('\n');
        for r in &report.results {
            let s = &r.summary;
            let mode = match r.mode {
                Mode::Single => "single",
                Mode::Grid => "grid",
            };
            writeln!(
                out,
                "{},{},{},{mode},{},{},{},{},{},{},{},{},{},{},{},{},{:.6}",
                r.method,
                r.ours,
                r.wait_ns,
                s.samples,
                s.min_ns,
                s.mean_ns,
                s.p50_ns,
                s.p90_ns,
                s.p99_ns,
                s.p999_ns,
                s.max_ns,
                s.early,
                s.early_max_ns,
                s.missed,
                s.cpu_ns_per_wait,
                r.cpu_share
            )?;
        }
        Ok(out.into_bytes())
    }
}
