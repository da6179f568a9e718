//! A checked `punctual bench` invocation of the wait table: what to measure and how long.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::method::MethodSpec;
use crate::cli::ComparePair;
use crate::intervals::bootstrap::Settings;

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

/// When to stop measuring one method at one wait length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Samples(u64),
    Duration(Duration),
}

/// A checked `punctual bench` invocation.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub methods: Vec<&'static MethodSpec>,
    pub waits: Vec<Duration>,
    pub stop: Stop,
    pub warmup: u64,
    pub mode: Mode,
    pub phase: Phase,
    /// Rounds of every method at every wait (`--repeat`); 1 for a run as it always was.
    pub rounds: u64,
    /// How the intervals over rounds are computed.
    pub intervals: Settings,
    /// The pair `--compare` named; without it, rounds compare the recommended method with
    /// each other one.
    pub compare: Option<ComparePair>,
}
