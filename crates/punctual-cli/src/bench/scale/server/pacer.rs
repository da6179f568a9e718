//! The pacer: a thread outside the runtime that plays the schedule. It spawns each
//! timeout's task when it is due (the pending set at once, then the churn's one by one)
//! and aborts the task of a cancelled timeout at its cancellation time, a step at a time;
//! it registers nothing itself, and what it reads (CPU, memory, the end's lags) goes to
//! [`Pacing`].

use std::collections::BinaryHeap;
use std::sync::atomic::Ordering::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::AbortHandle;

use super::plan::Draw;
use super::run::ServerArgs;
use super::task::{nanos, timeout, Shared, FIRED, LEFT, PENDING, SPAWNED, UNPOLLED};
use crate::bench::scale::timers::ScaleTimer;
use crate::sys::{self, Platform};

/// How often the pacer looks at its schedule: a registration or cancellation lag below
/// this (and the OS's wake-up of the pacer) is the pacer's own step, not the timer's.
pub const PACER_STEP: Duration = Duration::from_micros(100);

/// How long the end of the churn waits for its last registration and cancellation to land.
const END_GRACE: Duration = Duration::from_millis(100);

/// A cancellation the pacer will make: due at `due_ns` (from the epoch) once the timeout
/// is registered, `after_ns` past its registration. `handle` is `None` only in the entries
/// that touch the heap's memory before the pending set registers.
struct Cancel {
    due_ns: u64,
    index: usize,
    after_ns: u64,
    handle: Option<AbortHandle>,
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

/// The cancellations to come, earliest first, and what making them found.
struct Cancels {
    heap: BinaryHeap<Cancel>,
    /// Timeouts in the pending set: `too_late` counts the churn's only.
    pending: usize,
    /// The churn's timeouts drawn to be cancelled that had fired by their turn.
    too_late: u64,
    /// The last cancellation made, and when it was due.
    last: Option<(usize, u64)>,
}

impl Cancels {
    /// Room for `room` cancellations, its memory touched now, so that pushing as many later
    /// grows no resident memory.
    fn with_room(room: usize, pending: usize) -> Cancels {
        let mut heap: BinaryHeap<Cancel> = (0..room)
            .map(|index| Cancel {
                due_ns: 0,
                index,
                after_ns: 0,
                handle: None,
            })
            .collect();
        heap.clear();
        Cancels {
            heap,
            pending,
            too_late: 0,
            last: None,
        }
    }

    /// Makes every cancellation due by `now_ns`: a timeout registered `after_ns` or more
    /// ago is aborted; one registered since, or not yet, waits its turn again.
    fn make_due(&mut self, shared: &Shared, now_ns: u64) {
        while self.heap.peek().is_some_and(|top| top.due_ns <= now_ns) {
            let Some(mut cancel) = self.heap.pop() else {
                break;
            };
            let slot = &shared.slots[cancel.index];
            match slot.state.load(Acquire) {
                // Registration is behind: cancel once it has caught up.
                SPAWNED => {
                    cancel.due_ns = now_ns + nanos(PACER_STEP);
                    self.heap.push(cancel);
                }
                PENDING => {
                    let due = slot.registered_ns.load(Relaxed) + cancel.after_ns;
                    if due > now_ns {
                        cancel.due_ns = due;
                        self.heap.push(cancel);
                    } else if let Some(handle) = &cancel.handle {
                        slot.cancel_due_ns.store(due, Relaxed);
                        handle.abort();
                        self.last = Some((cancel.index, due));
                    }
                }
                // The pending set's are left out: its registration is a burst, not the
                // schedule.
                FIRED if cancel.index >= self.pending => self.too_late += 1,
                _ => {}
            }
        }
    }
}

/// What the pacer read besides the slots.
#[derive(Default)]
pub(super) struct Pacing {
    pub(super) rss_growth: Option<i64>,
    /// The most of the pending set pending at once while it registered, as sampled.
    pub(super) pending_peak: u64,
    pub(super) timer_bytes: u64,
    /// Timeouts spawned, in slot order.
    pub(super) spawned: usize,
    pub(super) churn_registrations: u64,
    pub(super) churn_start_ns: u64,
    /// Process CPU during the churn, less the pacer's.
    pub(super) cpu: Option<Duration>,
    pub(super) driver_cpu: Option<Duration>,
    /// The driver threads' native sleeps during the churn, and of those the ones a
    /// registration cut short; with the churn's length.
    pub(super) driver_sleeps: Option<(u64, u64, u64)>,
    pub(super) churn_ns: u64,
    pub(super) cancel_too_late: u64,
    /// The last cancellation the pacer made, and when it was due.
    pub(super) last_cancelled: Option<(usize, u64)>,
    /// When the churn's end was taken, from the epoch.
    pub(super) sweep_ns: u64,
    /// How far behind the last cancellation still was then, when it had not landed.
    pub(super) cancel_behind_at_end_ns: Option<u64>,
}

/// Spawns this many of the pending set between two looks at the cancellations due.
const FILL_BATCH: usize = 1024;

/// Plays the schedule: the pending set, then the churn, with every cancellation on time.
pub(super) fn pace<T: ScaleTimer>(
    timer: &T,
    handle: &tokio::runtime::Handle,
    shared: &Arc<Shared>,
    args: &ServerArgs,
) -> Pacing {
    let plan = args.plan;
    let pending = usize::try_from(plan.pending).unwrap_or(usize::MAX);
    let mut draw = Draw::new(args.seed);
    let mut pacing = Pacing::default();
    let mut spawn = |index: usize, due_ns: u64, cancels: &mut Cancels| {
        let drawn = draw.next();
        let task = handle.spawn(timeout(
            timer.clone(),
            Arc::clone(shared),
            index,
            Duration::from_nanos(drawn.length_ns),
        ));
        if let Some(after_ns) = drawn.cancel_after_ns {
            cancels.heap.push(Cancel {
                due_ns: due_ns.saturating_add(after_ns),
                index,
                after_ns,
                handle: Some(task.abort_handle()),
            });
        }
    };
    // The pending set's cancellations fit in the room made before the baseline, so that
    // the resident memory grown while it registers is the timers' and the tasks'.
    let mut cancels = Cancels::with_room(pending, pending);
    let rss_before = sys::Os::resident_bytes();
    let fill_start = shared.now_ns();
    let mut peak = 0;
    for index in 0..pending {
        spawn(index, fill_start, &mut cancels);
        if index % FILL_BATCH == FILL_BATCH - 1 {
            cancels.make_due(shared, shared.now_ns());
            peak = peak.max(shared.fill_pending());
        }
    }
    while shared.filled.load(Acquire) < plan.pending && !crate::bench::interrupted() {
        cancels.make_due(shared, shared.now_ns());
        peak = peak.max(shared.fill_pending());
        std::thread::sleep(PACER_STEP);
    }
    pacing.pending_peak = peak.max(shared.fill_pending());
    pacing.rss_growth = sys::Os::resident_bytes()
        .zip(rss_before)
        .map(|(after, before)| after as i64 - before as i64);
    pacing.timer_bytes = timer.timer_bytes();

    let churn_count = plan.churn_count();
    let pacer_before = sys::Os::thread_cpu_time();
    let process_before = sys::Os::process_cpu_time();
    let driver_before = timer.driver_cpu();
    let sleeps_before = timer.driver_sleeps();
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
            spawn(pending + k as usize, due_ns, &mut cancels);
            k += 1;
        }
        cancels.make_due(shared, now_ns);
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
    pacing.driver_sleeps = timer.driver_sleeps().zip(sleeps_before).map(
        |((waits, cut, locks), (waits0, cut0, locks0))| {
            (waits - waits0, cut - cut0, locks - locks0)
        },
    );
    pacing.churn_ns = shared.now_ns().saturating_sub(start_ns);
    pacing.cancel_too_late = cancels.too_late;
    pacing.last_cancelled = cancels.last;
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
