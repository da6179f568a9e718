//! What the server workload measured, as plain data: a worker process prints one
//! [`ServerResult`] as JSON, the parent reads it back, the table and the JSON export show
//! the [`ServerReport`].

use serde::{Deserialize, Serialize};

use crate::bench::load::LoadKind;
use crate::bench::scale::repeats::{ScaleOverRounds, ScaleRound};
use crate::bench::stats::Lateness;
use crate::bench::RunMode;
use crate::environment::Environment;

/// Everything a server workload's run produced: its JSON export is this struct.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerReport {
    /// See [`crate::export::SCHEMA_VERSION`].
    pub schema_version: u32,
    pub environment: Environment,
    pub run: ServerRun,
    pub results: Vec<ServerResult>,
    /// Anything that degraded the run, and what the figures leave out.
    pub notes: Vec<String>,
    /// The command line that made the run, the program as `punctual`.
    pub command: Vec<String>,
}

/// How the run was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerRun {
    /// Always `server`.
    pub mode: RunMode,
    /// Timeouts registered at once before the churn: the pending set.
    pub pending: u64,
    /// Registrations a second during the churn.
    pub churn_per_s: u64,
    /// How long the churn ran, per method.
    pub duration_ns: u64,
    /// Workers of the multi-thread runtime.
    pub workers: u64,
    /// The shortest and the longest timeout drawn (log-uniform between them).
    pub shortest_ns: u64,
    pub longest_ns: u64,
    /// The share of timeouts drawn to be cancelled before their deadline.
    pub cancelled_share: f64,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads ran.
    pub load_threads: usize,
    /// Whether Ctrl-C stopped the run before every method was measured.
    pub interrupted: bool,
}

/// One method on one runtime under the server workload.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerResult {
    /// The method's name, as `--methods` takes it.
    pub method: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// `current-thread` or `multi-thread`.
    pub runtime: String,
    /// The runtime's worker threads (1 for a current-thread runtime).
    pub workers: u64,
    /// Timeouts registered: polled once, so pending in the timer.
    pub registered: u64,
    /// Of those, fired: their await returned at the deadline or after.
    pub fired: u64,
    /// Of those, cancelled (dropped) before their deadline, as drawn.
    pub cancelled: u64,
    /// Of those, still pending when the churn ended, dropped with the runtime.
    pub left_pending: u64,
    /// Spawned by the churn but not polled by its end, so never registered: registration
    /// was behind.
    pub not_registered: u64,
    /// Of the churn's timeouts, those drawn to be cancelled that fired first, because the
    /// cancellation came too late; counted in `fired` too.
    pub cancel_too_late: u64,
    /// How late the fired timeouts completed by the task's clock (`Instant::now()` after
    /// the await, minus the deadline it gave).
    #[serde(flatten)]
    pub lateness: Lateness,
    /// CPU time of the whole process during the churn, less the pacer thread's (which
    /// registers nothing itself: it spawns the tasks and aborts the cancelled), per timeout
    /// the churn registered.
    pub cpu_ns_per_timer: Option<u64>,
    /// CPU time of the method's timer thread during the churn, per timeout the churn
    /// registered (punctual's driver thread, or its threads summed; tokio's timer runs on
    /// the runtime's own threads and has none).
    pub driver_cpu_ns_per_timer: Option<u64>,
    /// How often punctual's driver threads went to sleep natively during the churn (each
    /// sleep one OS wait and one wake-up), and how many of those sleeps a registration cut
    /// short; tokio's timer has no thread and none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_sleeps: Option<DriverSleeps>,
    /// The most timeouts of the pending set pending at once while it registered (its short
    /// ones fire, and its cancellations start, before the last is registered), as the
    /// pacer sampled it.
    pub pending_peak: u64,
    /// Resident memory grown while the pending set was registered, per timeout pending at
    /// its peak (`pending_peak`): the task awaiting it, its timer, and their share of the
    /// executor's and the timer's structures (the bench's own records are allocated and
    /// touched before). The allocator keeps what completed tasks freed for the next ones,
    /// so resident memory follows the most pending at once.
    pub rss_bytes_per_pending: Option<i64>,
    /// Bytes per pending timeout by the library's own count, with the pending set
    /// registered: punctual's `Sleep` plus its share of its driver's storage; tokio's
    /// `Sleep`, which holds its wheel entry.
    pub timer_bytes: u64,
    /// How far registration fell behind the churn's schedule: the latest a task registered
    /// its timeout after its due time.
    pub registration_lag_max_ns: u64,
    /// The lag of the churn's last registration.
    pub registration_lag_final_ns: u64,
    /// How far cancellation fell behind: the latest a cancelled timeout was dropped after
    /// its drawn cancellation time.
    pub cancel_lag_max_ns: u64,
    /// The lag of the last cancellation before the churn ended.
    pub cancel_lag_final_ns: u64,
    /// Each round's figures, in the order measured (`--repeat K`, K from 2; absent for one
    /// round): a round is one fresh process of this method. The figures above are then
    /// pooled over the rounds (see `docs/export.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<ScaleRound>,
    /// The figures over the rounds with their intervals (with `repeats` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_rounds: Option<ScaleOverRounds>,
}

/// The driver threads' native sleeps during the churn, per second of it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DriverSleeps {
    /// Native sleeps (OS waits) a second, all the method's driver threads together.
    pub per_s: f64,
    /// Of those, sleeps cut short by a registration due before the planned wake-up.
    pub interrupted_per_s: f64,
    /// Times a second a thread (a worker registering or cancelling, or the driver itself)
    /// found the driver's lock held and waited for it (exports before it have none: 0).
    #[serde(default)]
    pub lock_waits_per_s: f64,
}
