//! A checked `punctual bench` invocation of the wait table: what to measure and how long.

use std::time::Duration;

use super::batch::{Mode, Phase};
use super::method::MethodSpec;
use crate::cli::ComparePair;
use crate::intervals::bootstrap::Settings;

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
    /// `--warmup`, handed to the run's context (`BenchMode::warmup`), which warms up.
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
