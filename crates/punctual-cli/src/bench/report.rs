//! What a `punctual bench` run produced, as plain data: the table, the exporters and the
//! plot read it, and nothing else.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::batch::{Mode, Phase};
use super::load::LoadKind;
use super::rounds::OverRounds;
use super::scale::ScaleResult;
use super::stats::Summary;
use crate::environment::Environment;
use crate::export::json::PercentilePoint;
use crate::intervals::figure::Round;

/// What a run measured: waits of given lengths (single or grid), many timers at once, the
/// frontier, or many sleepers at once: the `run.mode` of every export, which tells the
/// reader which report the rest of the file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// Back-to-back waits (`--mode single`).
    Single,
    /// Waits on a fixed grid (`--mode grid`).
    Grid,
    /// N timers pending at once (`punctual scale`).
    Scale,
    /// CPU per wait against tail lateness (`punctual frontier`).
    Frontier,
    /// Many sleepers at once (`punctual threads`).
    Threads,
    /// A server's timeouts (`punctual scale --workload server`).
    Server,
}

impl From<Mode> for RunMode {
    fn from(mode: Mode) -> RunMode {
        match mode {
            Mode::Single => RunMode::Single,
            Mode::Grid => RunMode::Grid,
        }
    }
}

/// How the run was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    /// `single`, `grid` or `scale`.
    pub mode: RunMode,
    /// `aligned` or `scrambled`.
    pub phase: Phase,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads ran.
    pub load_threads: usize,
    /// Samples per method and wait, when the run was sized by count.
    pub samples_per_method: Option<u64>,
    /// Measuring time per method and wait, when the run was sized by time.
    pub duration_per_method_ns: Option<u64>,
    /// Unrecorded waits before each method's first batch at each wait length.
    pub warmup: u64,
    /// The numbers of timers pending at once, in scale mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timers: Option<Vec<u64>>,
    /// The fewest rounds per method and N, in scale mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rounds: Option<u64>,
    /// Whether Ctrl-C stopped the run before it measured all it was asked to: the results
    /// are then what was measured until the end of the batch under way (in scale mode, of
    /// the round under way), and nothing after it.
    #[serde(default)]
    pub interrupted: bool,
}

/// One method at one wait length.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MethodResult {
    /// The method's name, as `--methods` takes it.
    pub method: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// The wait length, in nanoseconds.
    pub wait_ns: u64,
    /// `single` or `grid`.
    pub mode: Mode,
    #[serde(flatten)]
    pub summary: Summary,
    /// CPU time per wait as a share of the wait (1.0 is a whole core for the whole wait).
    pub cpu_share: f64,
    /// What the method reported about itself after this wait length.
    pub note: Option<String>,
    /// The points of its lateness distribution, for `punctual report` to draw.
    #[serde(default)]
    pub lateness_percentiles: Vec<PercentilePoint>,
    /// Each round's figures, in the order measured (`--repeat K`, K from 2; absent for one
    /// round). The figures above are over every round's waits together.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
    /// The figures over the rounds with their intervals (with `rounds` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_rounds: Option<OverRounds>,
}

/// Everything a wait table's or a scale run produced: the table, the exporters and the
/// page read it, and its JSON export is this struct, written and read back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// See [`crate::export::SCHEMA_VERSION`]; 0 in an export from before it was written.
    #[serde(default)]
    pub schema_version: u32,
    pub environment: Environment,
    pub run: RunInfo,
    pub results: Vec<MethodResult>,
    /// One method with N timers pending at once, per method and N (scale mode).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale: Vec<ScaleResult>,
    /// The one-line advice, when there is a method to advise.
    pub recommendation: Option<String>,
    /// Anything that degraded the run (refused priorities and the like).
    pub notes: Vec<String>,
    /// The command line that made the run, the program as `punctual`; empty in an export
    /// from before it was written.
    #[serde(default)]
    pub command: Vec<String>,
    /// The lateness histogram of each result, in the same order, for plots; not exported
    /// (the results' percentiles are).
    #[serde(skip)]
    pub histograms: Vec<Histogram<u64>>,
}

/// The note a run stopped by Ctrl-C carries, in the table and every export.
pub const STOPPED_EARLY: &str =
    "stopped early by Ctrl-C: these are the results measured until then";
