//! What a page is made from: a `punctual bench --export-json` file read back, a wait table's
//! or a `--frontier` run's. Fields an older export lacks read as unknown, so that a page can
//! be made of any export; what the page cannot show (a --scale or --threads run) is an error
//! that says so.

use anyhow::bail;
use serde::Deserialize;
use serde_json::Value;

use crate::bench::frontier::Family;
use crate::environment::Environment;

/// One export.
#[derive(Debug, Clone, Deserialize)]
pub struct Export {
    pub environment: Environment,
    pub run: Run,
    /// A wait table's rows: one method at one wait.
    #[serde(default)]
    pub results: Vec<Row>,
    /// A frontier run's rows: one contender at one wait.
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
    /// `single`, `grid` or `frontier` (a `scale` or `threads` run has no page).
    pub mode: String,
    pub phase: String,
    pub load: String,
    pub load_threads: u64,
    #[serde(default)]
    pub samples_per_method: Option<u64>,
    #[serde(default)]
    pub duration_per_method_ns: Option<u64>,
    pub warmup: u64,
    #[serde(default)]
    pub interrupted: bool,
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
    pub samples: u64,
    pub min_ns: i64,
    pub mean_ns: i64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
    pub early: u64,
    #[serde(default)]
    pub missed: u64,
    pub cpu_ns_per_wait: u64,
    pub cpu_share: f64,
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
}

impl Export {
    /// Reads an export; `shown` names it in errors.
    pub fn from_value(value: Value, shown: &str) -> anyhow::Result<Export> {
        if let Some(mode @ ("scale" | "threads")) =
            value.pointer("/run/mode").and_then(Value::as_str)
        {
            bail!("{shown} is a --{mode} run: `punctual report` makes pages of wait tables (single or grid mode) and --frontier runs only");
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

    /// The rows, whichever kind of run it was.
    pub fn rows(&self) -> &[Row] {
        if self.is_frontier() {
            &self.points
        } else {
            &self.results
        }
    }

    /// The waits, in the order measured.
    pub fn waits(&self) -> Vec<u64> {
        let mut waits: Vec<u64> = Vec::new();
        for row in self.rows() {
            if !waits.contains(&row.wait_ns) {
                waits.push(row.wait_ns);
            }
        }
        waits
    }

    pub fn rows_at(&self, wait_ns: u64) -> Vec<&Row> {
        self.rows()
            .iter()
            .filter(|r| r.wait_ns == wait_ns)
            .collect()
    }
}
