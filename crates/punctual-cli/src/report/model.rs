//! What a page is made from: a `punctual bench --export-json` file read back, of any mode:
//! a wait table's, a `--frontier`, a `--threads` or a `--scale` run's. Fields an older export
//! lacks read as unknown, so that a page can be made of any export.

use anyhow::bail;
use serde::Deserialize;
use serde_json::Value;

use crate::bench::frontier::Family;
use crate::bench::stats::Lateness;
use crate::environment::Environment;

/// One export.
#[derive(Debug, Clone, Deserialize)]
pub struct Export {
    pub environment: Environment,
    pub run: Run,
    /// A wait table's rows: one method at one wait.
    #[serde(default)]
    pub results: Vec<Row>,
    /// A frontier run's rows: one contender at one wait. (A threads run's rows, one method's
    /// threads, are `results` with no one wait: their `wait_ns` reads 0.)
    #[serde(default)]
    pub points: Vec<Row>,
    #[serde(default)]
    pub placements: Vec<Placement>,
    #[serde(default)]
    pub recommendation: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The command that made the run; exports before `punctual report` existed lack it.
    #[serde(default)]
    pub command: Option<Vec<String>>,
}

/// How the run was made.
#[derive(Debug, Clone, Deserialize)]
pub struct Run {
    /// `single`, `grid`, `frontier`, `threads` or `scale`.
    pub mode: String,
    /// `aligned` or `scrambled`; a threads run has none.
    #[serde(default)]
    pub phase: Option<String>,
    pub load: String,
    pub load_threads: u64,
    #[serde(default)]
    pub samples_per_method: Option<u64>,
    #[serde(default)]
    pub duration_per_method_ns: Option<u64>,
    /// Unrecorded waits first; a threads run has none.
    #[serde(default)]
    pub warmup: Option<u64>,
    #[serde(default)]
    pub interrupted: bool,
    /// A threads run's sleepers per method, all at once.
    #[serde(default)]
    pub threads: Option<u64>,
    /// A threads run's range of waits.
    #[serde(default)]
    pub wait_min_ns: Option<u64>,
    #[serde(default)]
    pub wait_max_ns: Option<u64>,
    /// A scale run's numbers of timers pending at once.
    #[serde(default)]
    pub timers: Vec<u64>,
    /// A scale run's least rounds per method and N.
    #[serde(default)]
    pub min_rounds: Option<u64>,
    /// A frontier run's waits, with the samples each contender took.
    #[serde(default)]
    pub waits: Vec<WaitSize>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct WaitSize {
    pub wait_ns: u64,
    pub samples_per_contender: u64,
}

/// One method (or frontier contender) at one wait.
#[derive(Debug, Clone, Deserialize)]
pub struct Row {
    /// The method's name, or the contender's label.
    #[serde(alias = "label")]
    pub method: String,
    #[serde(default)]
    pub ours: bool,
    /// A frontier contender's family: `fixed-margin`, `spin-sleep`, `hybrid`, `async-spin`.
    #[serde(default)]
    pub family: Option<Family>,
    /// A frontier sweep's setting: the fixed margin, or spin_sleep's native accuracy.
    #[serde(default)]
    pub setting_ns: Option<u64>,
    /// spin_sleep's own default accuracy.
    #[serde(default)]
    pub default: bool,
    pub wait_ns: u64,
    /// The lateness columns, as the bench wrote them.
    #[serde(flatten)]
    pub lateness: Lateness,
    #[serde(default)]
    pub missed: u64,
    /// In a threads run, the crew's own CPU time over the sleeps it completed.
    pub cpu_ns_per_wait: u64,
    /// In a threads run, the crew's own CPU time over the wall time: cores.
    pub cpu_share: f64,
    /// A threads run's process CPU time over the wall time: cores, every thread's.
    #[serde(default)]
    pub cores: Option<f64>,
    /// A scale run's timers pending at once (its CPU per wait is the process's per timer).
    #[serde(default)]
    pub timers: Option<u64>,
    /// A scale run's driver thread's CPU time per timer.
    #[serde(default)]
    pub driver_cpu_ns_per_timer: Option<u64>,
    /// A scale run's longest stretch with a timer overdue and none completing.
    #[serde(default)]
    pub longest_stall_ns: Option<u64>,
    #[serde(default)]
    pub note: Option<String>,
    /// The lateness distribution's points; exports before `punctual report` existed lack
    /// them, and so do frontier exports from before it drew their distributions.
    #[serde(default)]
    pub lateness_percentiles: Vec<Percentile>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Percentile {
    pub percentile: f64,
    pub lateness_ns: u64,
}

/// Where an adaptive method sits against a frontier run's fixed margins.
#[derive(Debug, Clone, Deserialize)]
pub struct Placement {
    pub method: String,
    pub wait_ns: u64,
    pub cpu_ns_per_wait: u64,
    pub p99_ns: u64,
    #[serde(default)]
    pub frontier_p99_ns: Option<u64>,
    #[serde(default)]
    pub frontier_basis: String,
    #[serde(default)]
    pub p99_to_frontier: Option<f64>,
    /// The fixed margins' rank correlation of p99 with margin; exports before it lack it.
    #[serde(default)]
    pub sweep_order: Option<f64>,
}

impl Export {
    /// Reads an export; `shown` names it in errors.
    pub fn from_value(value: Value, shown: &str) -> anyhow::Result<Export> {
        let mut value = value;
        match value.pointer("/run/mode").and_then(Value::as_str) {
            Some("scale") => scale_as_rows(&mut value),
            Some("threads") => threads_as_rows(&mut value),
            _ => {}
        }
        let export: Export = serde_json::from_value(value).map_err(|e| {
            anyhow::anyhow!("{shown} is not a `punctual bench --export-json` file: {e}")
        })?;
        if export.rows().is_empty() {
            bail!("{shown} holds no results: nothing was measured, so there is nothing to show");
        }
        Ok(export)
    }

    pub fn is_frontier(&self) -> bool {
        self.run.mode == "frontier"
    }

    pub fn is_threads(&self) -> bool {
        self.run.mode == "threads"
    }

    pub fn is_scale(&self) -> bool {
        self.run.mode == "scale"
    }

    /// What kind of run it was, as the page names it.
    pub fn kind(&self) -> &'static str {
        match self.run.mode.as_str() {
            "frontier" => "punctual frontier",
            "threads" => "punctual threads",
            "scale" => "punctual scale",
            _ => "punctual bench",
        }
    }

    /// The rows, whichever kind of run it was.
    pub fn rows(&self) -> &[Row] {
        if self.is_frontier() {
            &self.points
        } else {
            &self.results
        }
    }
}

/// A threads run's results as rows: CPU per wait is the crew's own CPU time per completed
/// sleep, its share the crew's cores; the process's cores are kept beside.
fn threads_as_rows(value: &mut Value) {
    let Some(Value::Array(results)) = value.get_mut("results") else {
        return;
    };
    for result in results {
        let number = |field: &str| result.get(field).and_then(Value::as_f64);
        let (samples, wall_ns, own) =
            (number("samples"), number("wall_ns"), number("thread_cores"));
        let cpu_ns_per_sleep = match (samples, wall_ns, own) {
            (Some(n), Some(wall), Some(own)) if n > 0.0 => (own * wall / n).round() as u64,
            _ => 0,
        };
        if let Value::Object(fields) = result {
            fields.insert("wait_ns".into(), 0.into());
            fields.insert("cpu_ns_per_wait".into(), cpu_ns_per_sleep.into());
            fields.insert("cpu_share".into(), own.unwrap_or(0.0).into());
        }
    }
}

/// A scale run's rows (`scale`, one method at one N) as rows: CPU per wait is the process's
/// CPU time per timer (0 where the platform has no CPU clock).
fn scale_as_rows(value: &mut Value) {
    let Value::Object(fields) = value else {
        return;
    };
    let Some(Value::Array(mut rows)) = fields.remove("scale") else {
        return;
    };
    for row in &mut rows {
        let cpu = row
            .get("cpu_ns_per_timer")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if let Value::Object(row) = row {
            row.insert("wait_ns".into(), 0.into());
            row.insert("cpu_ns_per_wait".into(), cpu.into());
            row.insert("cpu_share".into(), 0.0.into());
        }
    }
    fields.insert("results".into(), Value::Array(rows));
}
