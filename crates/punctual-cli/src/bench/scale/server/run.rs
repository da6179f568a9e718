//! One method on one runtime under the server workload, in a process of its own (so that
//! its memory and CPU are its own).
//!
//! A pacer thread, outside the runtime, plays the schedule: it spawns one task per
//! timeout when the timeout is due (all of the pending set at once, then the churn's one
//! by one), and aborts the task of a cancelled timeout at its cancellation time. The task
//! registers the timeout on its first poll, on whichever worker runs it, so on a
//! multi-thread runtime registration comes from every worker; an abort drops the task, and
//! with it the timer, on a worker too. The pacer registers nothing itself, and its CPU is
//! taken out of the process's.
//!
//! The measuring costs the tasks little on purpose: each timeout has a slot of its own,
//! preallocated and touched before anything is measured, written with relaxed stores; the
//! figures are read from the slots once the runtime is gone.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering::*};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::pacer::{pace, Pacing};
use super::plan::Plan;
use super::task::{Shared, Slot, CANCELLED, FIRED, FIRED_IN_FILL, LEFT, SPAWNED, UNPOLLED};
use super::ServerResult;
use crate::bench::method::{MethodSpec, ScaleRuntime};
use crate::bench::scale::timers::{self, MeasureTimer, ScaleTimer};
use crate::bench::stats::{Recorder, Sample};

/// What the parent asks a server worker to measure.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    pub method: &'static MethodSpec,
    pub plan: Plan,
    /// Workers of a multi-thread runtime.
    pub workers: u64,
    pub seed: u64,
}

/// Measures `args.method` under the server workload; the entry point of a server worker.
pub fn run(args: &ServerArgs) -> anyhow::Result<ServerResult> {
    let scale = args.method.scale()?;
    anyhow::ensure!(
        scale.server,
        "`{}` has no server workload",
        args.method.name
    );
    // A driver per runtime worker, each worker's timeouts on its own.
    let workers = usize::try_from(args.workers)?;
    timers::with_timer(scale.timer, workers, Server(args))?
}

/// The server workload, on whichever timer the method names.
struct Server<'a>(&'a ServerArgs);

impl MeasureTimer for Server<'_> {
    type Output = anyhow::Result<ServerResult>;

    fn measure<T: ScaleTimer>(self, timer: T) -> anyhow::Result<ServerResult> {
        measure(timer, self.0)
    }
}

/// Measures `timer` under the server workload.
fn measure<T: ScaleTimer>(timer: T, args: &ServerArgs) -> anyhow::Result<ServerResult> {
    let scale = args.method.scale()?;
    let runtime = match scale.runtime {
        ScaleRuntime::CurrentThread => tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?,
        ScaleRuntime::MultiThread => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(usize::try_from(args.workers)?.max(1))
            .enable_time()
            .build()?,
    };
    let total = usize::try_from(args.plan.total())?;
    let shared = Arc::new(Shared {
        epoch: Instant::now(),
        pending: usize::try_from(args.plan.pending)?,
        slots: (0..total)
            .map(|_| Slot {
                registered_ns: AtomicU64::new(0),
                outcome_ns: AtomicI64::new(0),
                cancel_due_ns: AtomicU64::new(0),
                state: AtomicU8::new(SPAWNED),
            })
            .collect(),
        filled: AtomicU64::new(0),
        fill_ended: AtomicU64::new(0),
        churn_start_ns: AtomicU64::new(u64::MAX),
        done: Notify::new(),
    });
    let pacer = {
        let (timer, shared, handle, args) = (
            timer.clone(),
            Arc::clone(&shared),
            runtime.handle().clone(),
            args.clone(),
        );
        std::thread::Builder::new()
            .name("server-pacer".into())
            .spawn(move || {
                let pacing = pace(&timer, &handle, &shared, &args);
                shared.done.notify_one();
                pacing
            })?
    };
    runtime.block_on(shared.done.notified());
    let pacing = pacer
        .join()
        .map_err(|_| anyhow::anyhow!("the server workload's pacer panicked"))?;
    // Drops the tasks still pending: their slots are final already.
    drop(runtime);
    Ok(summarise(args, &shared, &pacing))
}

/// The result, from the slots and what the pacer read.
fn summarise(args: &ServerArgs, shared: &Shared, pacing: &Pacing) -> ServerResult {
    let pending = usize::try_from(args.plan.pending).unwrap_or(usize::MAX);
    let mut lateness = Recorder::default();
    let (mut fired, mut cancelled, mut left, mut unpolled) = (0, 0, 0, 0);
    let (mut registration_lag_max, mut cancel_lag_max) = (0u64, 0u64);
    for (index, slot) in shared.slots[..pacing.spawned].iter().enumerate() {
        let outcome = slot.outcome_ns.load(Relaxed);
        let churn = index >= pending;
        match slot.state.load(Acquire) {
            FIRED_IN_FILL => fired += 1,
            FIRED => {
                fired += 1;
                lateness.record(Sample {
                    lateness_ns: outcome,
                    cpu_ns: 0,
                    self_reported_ns: None,
                });
            }
            CANCELLED => {
                cancelled += 1;
                if churn {
                    cancel_lag_max = cancel_lag_max.max(outcome.max(0) as u64);
                }
            }
            LEFT => left += 1,
            _ => unpolled += 1,
        }
        if churn && slot.state.load(Relaxed) != UNPOLLED {
            registration_lag_max =
                registration_lag_max.max(registration_lag(args, shared, pacing, index));
        }
    }
    let registration_lag_final_ns = pacing
        .spawned
        .checked_sub(1)
        .filter(|&last| last >= pending)
        .map_or(0, |last| {
            if shared.slots[last].state.load(Relaxed) == UNPOLLED {
                // Not registered by the end: behind by at least as long as it was due.
                pacing
                    .sweep_ns
                    .saturating_sub(churn_due(args, pacing, last))
            } else {
                registration_lag(args, shared, pacing, last)
            }
        });
    let cancel_lag_final_ns = pacing.cancel_behind_at_end_ns.unwrap_or_else(|| {
        pacing
            .last_cancelled
            .filter(|&(i, _)| shared.slots[i].state.load(Relaxed) == CANCELLED)
            .map_or(0, |(i, _)| {
                shared.slots[i].outcome_ns.load(Relaxed).max(0) as u64
            })
    });
    let per_timer =
        |d: Duration| (d.as_nanos() / u128::from(pacing.churn_registrations.max(1))) as u64;
    let scale = args.method.scale().ok();
    let multi = scale.is_some_and(|s| s.runtime == ScaleRuntime::MultiThread);
    ServerResult {
        method: args.method.name.to_string(),
        ours: args.method.ours,
        runtime: runtime_name(multi).to_string(),
        workers: if multi { args.workers } else { 1 },
        registered: fired + cancelled + left,
        fired,
        cancelled,
        left_pending: left,
        not_registered: unpolled,
        cancel_too_late: pacing.cancel_too_late,
        lateness: lateness.summary().lateness,
        cpu_ns_per_timer: pacing.cpu.map(per_timer),
        driver_cpu_ns_per_timer: pacing.driver_cpu.map(per_timer),
        driver_sleeps: pacing.driver_sleeps.filter(|_| pacing.churn_ns > 0).map(
            |(waits, cut, locks)| {
                let seconds = pacing.churn_ns as f64 / 1e9;
                super::report::DriverSleeps {
                    per_s: waits as f64 / seconds,
                    interrupted_per_s: cut as f64 / seconds,
                    lock_waits_per_s: locks as f64 / seconds,
                }
            },
        ),
        pending_peak: pacing.pending_peak,
        rss_bytes_per_pending: pacing
            .rss_growth
            .filter(|_| pacing.pending_peak > 0)
            .map(|g| g / pacing.pending_peak as i64),
        timer_bytes: pacing.timer_bytes,
        registration_lag_max_ns: registration_lag_max,
        registration_lag_final_ns,
        cancel_lag_max_ns: cancel_lag_max,
        cancel_lag_final_ns,
        repeats: Vec::new(),
        over_rounds: None,
    }
}

/// `current-thread` or `multi-thread`, as the table and the export name the runtime.
pub fn runtime_name(multi_thread: bool) -> &'static str {
    if multi_thread {
        "multi-thread"
    } else {
        "current-thread"
    }
}

/// When the churn's timeout in slot `index` was due, from the epoch.
fn churn_due(args: &ServerArgs, pacing: &Pacing, index: usize) -> u64 {
    let k = (index - usize::try_from(args.plan.pending).unwrap_or(0)) as u64;
    pacing.churn_start_ns + args.plan.churn_due_ns(k)
}

fn registration_lag(args: &ServerArgs, shared: &Shared, pacing: &Pacing, index: usize) -> u64 {
    shared.slots[index]
        .registered_ns
        .load(Relaxed)
        .saturating_sub(churn_due(args, pacing, index))
}
