//! What one method with N timers pending at once measured, as plain data: a worker process
//! prints it as JSON, the parent reads it back, the table and the exporters show it.

use serde::{Deserialize, Serialize};

use super::repeats::{ScaleOverRounds, ScaleRound};
use super::stall;
use crate::bench::stats::Lateness;
use crate::export::json::PercentilePoint;

/// One method with N timers pending at once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScaleResult {
    /// The method's name, as `--methods` takes it.
    pub method: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// Timers pending at once (N).
    pub timers: u64,
    /// Rounds of N timers measured.
    pub rounds: u64,
    /// How late the timers of all rounds were: the task's clock reading after its await,
    /// minus the deadline.
    #[serde(flatten)]
    pub lateness: Lateness,
    /// CPU time of the whole process (executor, driver and all) from the moment every
    /// timer was pending until the last completed, per timer.
    pub cpu_ns_per_timer: Option<u64>,
    /// CPU time of the method's timer thread over the run, per timer (punctual's driver;
    /// tokio's timers run on the executor's thread and have none).
    pub driver_cpu_ns_per_timer: Option<u64>,
    /// How late the driver thread fired the timers, on average, before any executor's delay.
    pub driver_fire_lateness_mean_ns: Option<u64>,
    /// How late the driver thread fired its latest timer: beside a stall, it tells whether
    /// the driver was held up or the executor.
    pub driver_fire_lateness_max_ns: Option<u64>,
    /// Stretches with a timer overdue and none completing, over all rounds.
    #[serde(flatten)]
    pub stalls: stall::Stalls,
    /// Each round on its own, from 1,000 timers up: whether one round's stall made the
    /// run's p99, or every round's timers did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_round: Vec<RoundSummary>,
    /// Resident memory grown while setting up the first round, per pending timer: the task,
    /// its timer and their share of the executor's and the timer's structures. From 1,000
    /// timers up, where the OS reports it (Linux, Windows).
    pub rss_bytes_per_timer: Option<i64>,
    /// Bytes per pending timer by the library's own count: punctual's `Sleep` plus its share
    /// of the driver's storage (`Driver::allocated_bytes`); tokio's `Sleep`, which holds its
    /// wheel entry.
    pub timer_bytes: u64,
    /// Rounds whose set-up was still running at their first deadline.
    pub setup_overran: u64,
    /// The executor's floor, from 1,000 timers up: time per task to complete the same
    /// tasks, in the order of the same deadlines, woken all at once from another thread,
    /// with no timer at all.
    pub executor_floor_ns_per_task: Option<u64>,
    /// What the worker changed in the C allocator before measuring (see
    /// `Platform::steady_allocator`).
    pub allocator: Option<String>,
    /// For a method that asks for real-time scheduling: what the OS granted, or its refusal.
    pub scheduling: Option<String>,
    /// The points of the lateness distribution of all rounds' timers, as a wait table's
    /// results carry them.
    #[serde(default)]
    pub lateness_percentiles: Vec<PercentilePoint>,
    /// Each round's figures, in the order measured (`--repeat K`, K from 2; absent for one
    /// round): a round is one fresh process of this method at this N. The figures above
    /// are then pooled over the rounds (see `docs/export.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<ScaleRound>,
    /// The figures over the rounds with their intervals (with `repeats` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_rounds: Option<ScaleOverRounds>,
}

/// One round of N timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSummary {
    pub p99_ns: u64,
    pub max_ns: u64,
    pub longest_stall_ns: u64,
}
