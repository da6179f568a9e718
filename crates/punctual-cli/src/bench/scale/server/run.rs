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

use std::collections::BinaryHeap;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering::*};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use super::plan::{Draw, Plan};
use super::ServerResult;
use crate::bench::method::{MethodSpec, ScaleRuntime};
use crate::bench::scale::timers::ScaleTimer;
use crate::bench::stats::{Recorder, Sample};
use crate::sys::{self, Platform};

/// What the parent asks a server worker to measure.
#[derive(Debug, Clone)]
pub struct ServerArgs {
    pub method: &'static MethodSpec,
    pub plan: Plan,
    /// Workers of a multi-thread runtime.
    pub workers: u64,
    pub seed: u64,
}

/// How often the pacer looks at its schedule: a registration or cancellation lag below
/// this (and the OS's wake-up of the pacer) is the pacer's own step, not the timer's.
pub const PACER_STEP: Duration = Duration::from_micros(100);

/// How long the end of the churn waits for its last registration and cancellation to land.
const END_GRACE: Duration = Duration::from_millis(100);

/// A slot's states: spawned, not yet polled.
const SPAWNED: u8 = 0;
/// Registered and pending.
const PENDING: u8 = 1;
/// Fired while the pending set was still being registered (counted, not in the lateness).
const FIRED_IN_FILL: u8 = 2;
/// Fired during the churn; its lateness is in the slot.
const FIRED: u8 = 3;
/// Dropped before its deadline; its cancellation lag is in the slot.
const CANCELLED: u8 = 4;
/// Still pending when the churn ended.
const LEFT: u8 = 5;
/// Never polled by the time the churn ended.
const UNPOLLED: u8 = 6;

/// One timeout's record.
struct Slot {
    /// When it was registered, in nanoseconds from the run's epoch.
    registered_ns: AtomicU64,
    /// `FIRED`: its lateness. `CANCELLED`: how long after its cancellation time it was
    /// dropped.
    outcome_ns: AtomicI64,
    /// When the pacer cancelled it, from the epoch: left before the abort, which the drop
    /// that follows sees.
    cancel_due_ns: AtomicU64,
    state: AtomicU8,
}

struct Shared {
    epoch: Instant,
    /// Timeouts in the pending set: the first slots.
    pending: usize,
    slots: Box<[Slot]>,
    /// Timeouts of the pending set registered so far.
    filled: AtomicU64,
    /// When the churn started, from the epoch; `u64::MAX` before.
    churn_start_ns: AtomicU64,
    done: Notify,
}

impl Shared {
    fn now_ns(&self) -> u64 {
        nanos(self.epoch.elapsed())
    }
}

/// The task of one timeout: registers it, and records how it ended.
async fn timeout<T: ScaleTimer>(timer: T, shared: Arc<Shared>, index: usize, length: Duration) {
    let slot = &shared.slots[index];
    let registered = Instant::now();
    let deadline = registered + length;
    let mut sleep = pin!(timer.sleep_until(deadline));
    let mut polled = false;
    // Dropped with the task: an abort is the cancellation.
    let _cancel = Cancelled(&shared, index);
    poll_fn(|cx| {
        if polled {
            return sleep.as_mut().poll(cx).map(drop);
        }
        // Registered by this first poll, unless the churn ended before it came; the time
        // is stored first, for the pacer that sees it pending.
        slot.registered_ns
            .store(nanos(registered - shared.epoch), Relaxed);
        if slot
            .state
            .compare_exchange(SPAWNED, PENDING, AcqRel, Relaxed)
            .is_err()
        {
            return Poll::Ready(());
        }
        polled = true;
        let ready = sleep.as_mut().poll(cx).map(drop);
        if index < shared.pending {
            shared.filled.fetch_add(1, Release);
        }
        ready
    })
    .await;
    if !polled {
        return;
    }
    let late = signed_nanos(Instant::now(), deadline);
    let fired = if shared.now_ns() >= shared.churn_start_ns.load(Acquire) {
        FIRED
    } else {
        FIRED_IN_FILL
    };
    if slot
        .state
        .compare_exchange(PENDING, fired, AcqRel, Relaxed)
        .is_ok()
    {
        slot.outcome_ns.store(late, Relaxed);
    }
}

/// Records a cancellation when the task is dropped with its timeout pending.
struct Cancelled<'a>(&'a Shared, usize);

impl Drop for Cancelled<'_> {
    fn drop(&mut self) {
        let slot = &self.0.slots[self.1];
        let now = self.0.now_ns();
        if slot
            .state
            .compare_exchange(PENDING, CANCELLED, AcqRel, Relaxed)
            .is_ok()
        {
            let due = slot.cancel_due_ns.load(Relaxed);
            slot.outcome_ns.store(now as i64 - due as i64, Relaxed);
        }
    }
}

/// A cancellation the pacer will make: due at `due_ns` (from the epoch) once the timeout
/// is registered, `after_ns` past its registration.
struct Cancel {
    due_ns: u64,
    index: usize,
    after_ns: u64,
    handle: AbortHandle,
}

impl PartialEq for Cancel {
    fn eq(&self, other: &Self) -> bool {
        (self.due_ns, self.index) == (other.due_ns, other.index)
    }
}
impl Eq for Cancel {}
impl PartialOrd for Cancel {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Cancel {
    /// Reversed, so that the heap's top is the earliest due.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.due_ns, other.index).cmp(&(self.due_ns, self.index))
    }
}

/// What the pacer read besides the slots.
#[derive(Default)]
struct Pacing {
    rss_growth: Option<i64>,
    timer_bytes: u64,
    /// Timeouts spawned, in slot order.
    spawned: usize,
    churn_registrations: u64,
    churn_start_ns: u64,
    /// Process CPU during the churn, less the pacer's.
    cpu: Option<Duration>,
    driver_cpu: Option<Duration>,
    cancel_too_late: u64,
    /// The last cancellation the pacer made, and when it was due.
    last_cancelled: Option<(usize, u64)>,
    /// When the churn's end was taken, from the epoch.
    sweep_ns: u64,
    /// How far behind the last cancellation still was then, when it had not landed.
    cancel_behind_at_end_ns: Option<u64>,
}

/// Measures `timer` under the server workload; the entry point of a server worker.
pub fn measure<T: ScaleTimer>(timer: T, args: &ServerArgs) -> anyhow::Result<ServerResult> {
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

/// Plays the schedule: the pending set, then the churn, with every cancellation on time.
fn pace<T: ScaleTimer>(
    timer: &T,
    handle: &tokio::runtime::Handle,
    shared: &Arc<Shared>,
    args: &ServerArgs,
) -> Pacing {
    let plan = args.plan;
    let pending = usize::try_from(plan.pending).unwrap_or(usize::MAX);
    let mut draw = Draw::new(args.seed);
    let mut pacing = Pacing::default();
    let mut spawn = |index: usize, due_ns: u64, cancels: &mut dyn FnMut(Cancel)| {
        let drawn = draw.next();
        let task = handle.spawn(timeout(
            timer.clone(),
            Arc::clone(shared),
            index,
            Duration::from_nanos(drawn.length_ns),
        ));
        if let Some(after_ns) = drawn.cancel_after_ns {
            cancels(Cancel {
                due_ns: due_ns.saturating_add(after_ns),
                index,
                after_ns,
                handle: task.abort_handle(),
            });
        }
    };
    // The pending set's cancellations wait beside the heap, in memory touched beforehand,
    // so that the resident memory grown while it registers is the timers' and tasks'.
    let mut held: Vec<Option<Cancel>> = (0..pending).map(|_| None).collect();
    let rss_before = sys::Os::resident_bytes();
    let fill_start = shared.now_ns();
    for (index, held) in held.iter_mut().enumerate() {
        spawn(index, fill_start, &mut |cancel| *held = Some(cancel));
    }
    while shared.filled.load(Acquire) < plan.pending && !crate::bench::interrupted() {
        std::thread::sleep(Duration::from_millis(1));
    }
    pacing.rss_growth = sys::Os::resident_bytes()
        .zip(rss_before)
        .map(|(after, before)| after as i64 - before as i64);
    pacing.timer_bytes = timer.timer_bytes();
    let mut cancels: BinaryHeap<Cancel> = held.into_iter().flatten().collect();

    let churn_count = plan.churn_count();
    let pacer_before = sys::Os::thread_cpu_time();
    let process_before = sys::Os::process_cpu_time();
    let driver_before = timer.driver_cpu();
    let start_ns = shared.now_ns();
    shared.churn_start_ns.store(start_ns, Release);
    let end_ns = start_ns.saturating_add(nanos(plan.duration));
    let mut k = 0u64;
    loop {
        let now_ns = shared.now_ns();
        if crate::bench::interrupted() {
            break;
        }
        // Every registration due by now, the last ones too when the pacer woke past the end.
        while k < churn_count && start_ns + plan.churn_due_ns(k) <= now_ns {
            let due_ns = start_ns + plan.churn_due_ns(k);
            spawn(pending + k as usize, due_ns, &mut |cancel| {
                cancels.push(cancel)
            });
            k += 1;
        }
        while cancels.peek().is_some_and(|top| top.due_ns <= now_ns) {
            let Some(mut cancel) = cancels.pop() else {
                break;
            };
            let slot = &shared.slots[cancel.index];
            match slot.state.load(Acquire) {
                // Registration is behind: cancel once it has caught up.
                SPAWNED => {
                    cancel.due_ns = now_ns + nanos(PACER_STEP);
                    cancels.push(cancel);
                }
                PENDING => {
                    let due = slot.registered_ns.load(Relaxed) + cancel.after_ns;
                    if due > now_ns {
                        cancel.due_ns = due;
                        cancels.push(cancel);
                    } else {
                        slot.cancel_due_ns.store(due, Relaxed);
                        cancel.handle.abort();
                        pacing.last_cancelled = Some((cancel.index, due));
                    }
                }
                // Counted for the churn's timeouts only: the pending set's cancellations
                // start once it is all registered, so its short timeouts fire first.
                FIRED if cancel.index >= pending => pacing.cancel_too_late += 1,
                _ => {}
            }
        }
        if now_ns >= end_ns {
            break;
        }
        std::thread::sleep(PACER_STEP);
    }
    let spawned = pending + k as usize;
    let pacer_cpu = sys::Os::thread_cpu_time()
        .zip(pacer_before)
        .map(|(after, before)| after.saturating_sub(before));
    pacing.cpu = sys::Os::process_cpu_time()
        .zip(process_before)
        .map(|(after, before)| after.saturating_sub(before))
        .zip(pacer_cpu)
        .map(|(process, pacer)| process.saturating_sub(pacer));
    pacing.driver_cpu = timer
        .driver_cpu()
        .zip(driver_before)
        .map(|(after, before)| after.saturating_sub(before));
    // The last registration and the last cancellation get a moment to land, so that the
    // lags at the end are theirs rather than the end's.
    let landed = |index: Option<usize>, waiting: u8| {
        index.is_none_or(|i| shared.slots[i].state.load(Acquire) != waiting)
    };
    let last_spawned = spawned.checked_sub(1).filter(|&last| last >= pending);
    let last_cancel = pacing.last_cancelled.map(|(index, _)| index);
    let grace = Instant::now() + END_GRACE;
    while !(landed(last_spawned, SPAWNED) && landed(last_cancel, PENDING)) && Instant::now() < grace
    {
        std::thread::sleep(PACER_STEP);
    }
    let sweep_ns = shared.now_ns();
    if let Some((index, due_ns)) = pacing.last_cancelled {
        if shared.slots[index].state.load(Acquire) == PENDING {
            pacing.cancel_behind_at_end_ns = Some(sweep_ns.saturating_sub(due_ns));
        }
    }
    pacing.sweep_ns = sweep_ns;
    // The end of the churn: what is pending now is left, what is not polled yet never
    // registered; the tasks' own updates lose the race from here on.
    for slot in &shared.slots[..spawned] {
        let _ = slot
            .state
            .compare_exchange(SPAWNED, UNPOLLED, AcqRel, Relaxed);
        let _ = slot.state.compare_exchange(PENDING, LEFT, AcqRel, Relaxed);
    }
    pacing.spawned = spawned;
    pacing.churn_registrations = k;
    pacing.churn_start_ns = start_ns;
    pacing
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
        rss_bytes_per_pending: pacing
            .rss_growth
            .filter(|_| args.plan.pending > 0)
            .map(|g| g / args.plan.pending as i64),
        timer_bytes: pacing.timer_bytes,
        registration_lag_max_ns: registration_lag_max,
        registration_lag_final_ns,
        cancel_lag_max_ns: cancel_lag_max,
        cancel_lag_final_ns,
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

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn signed_nanos(woke: Instant, deadline: Instant) -> i64 {
    if woke >= deadline {
        i64::try_from((woke - deadline).as_nanos()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from((deadline - woke).as_nanos()).unwrap_or(i64::MAX)
    }
}
