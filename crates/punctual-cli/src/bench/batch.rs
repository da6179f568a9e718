//! What one batch of waits is, and what it measured: plain types the measuring loop (in
//! `worker.rs`) and every mode share, below every method.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::stats::Sample;

/// How waits follow one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Back-to-back waits of the given length, each measured from its own start.
    Single,
    /// Absolute deadlines `start + k * wait`; lateness against each deadline.
    Grid,
}

/// Whether waits start right after the previous wake, or after random work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Each wait starts as soon as the previous one ended.
    Aligned,
    /// A random amount of busy work comes before each wait, so waits start at any phase of
    /// the OS's timer tick, as they do in real programs.
    Scrambled,
}

/// What one batch measures.
#[derive(Debug, Clone, Copy)]
pub struct Batch {
    pub mode: Mode,
    pub phase: Phase,
    pub wait: Duration,
    pub count: u64,
    pub seed: u64,
}

/// What one batch measured.
#[derive(Debug, Default)]
pub struct BatchResult {
    pub samples: Vec<Sample>,
    pub missed: u64,
    pub wall: Duration,
    pub note: Option<String>,
}
