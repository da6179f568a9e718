//! The driver thread: fire what is due, then sleep natively until the next fire time, or
//! until a timer earlier than that is registered. The spin tail is not the thread's: a
//! sleep spins in its own task (see `tail.rs`); the thread only fires it early.

use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Weak};
use std::task::Waker;
use std::time::{Duration, Instant};

use super::driver::{nanos, DriverStats, Shared, NEVER_NS};
use super::fired::FiredThrough;
use super::pace::{Next, Pace};
use crate::margin::Plan;
use crate::sys::{self, DriverWait, Platform};

/// How many timers one pass fires before waking their tasks, so that the first tasks of a
/// burst start sooner and a registration waits less for the lock. (Completing sleeps take
/// no lock: the driver frees the slots of the timers it fires.)
const BATCH: usize = 64;
/// How stale the published CPU time may get while the driver is busy: reading the thread's
/// CPU clock is a system call, too dear for every one of thousands of short waits.
const CPU_TIME_EVERY: Duration = Duration::from_millis(1);
/// How far off the next fire time must be for the driver to give spare storage back before
/// waiting: never in the middle of a burst (see `timers/mod.rs`).
const TRIM_BEFORE: Duration = Duration::from_millis(1);

/// What the driver thread shares with the handles, beyond the timers themselves; it
/// outlives [`Shared`], which the thread only holds weakly.
pub(crate) struct Core {
    waiter: sys::Waiter,
    /// The deadline the thread sleeps towards, in the driver's nanoseconds: [`NEVER_NS`]
    /// when it has no timer, 0 while it is awake and will look at the heap anyway. Written
    /// under the timers' lock (or by the thread on waking), so a registration that sees a
    /// later plan interrupts the wait, and one that sees 0 can leave it to the thread.
    pub(crate) planned_ns: AtomicU64,
    /// The timers' fired-through mark, published under the lock after each pass, so a
    /// completing sleep can see its timer has fired without taking the lock (`fired.rs`).
    pub(crate) fired_through: FiredThrough,
    cpu_time_ns: AtomicU64,
    wakes: AtomicU64,
    spun: AtomicU64,
    capped: AtomicU64,
    native_only: AtomicU64,
    margin_overrun: AtomicU64,
    spin_time_ns: AtomicU64,
    interrupts: AtomicU64,
    waits: AtomicU64,
    waker_panics: AtomicU64,
    fire_late_total_ns: AtomicU64,
    fire_late_max_ns: AtomicU64,
    lock_waits: AtomicU64,
}

impl Core {
    pub(crate) fn new(waiter: sys::Waiter) -> Core {
        Core {
            waiter,
            planned_ns: AtomicU64::new(NEVER_NS),
            fired_through: FiredThrough::default(),
            cpu_time_ns: AtomicU64::new(NEVER_NS),
            wakes: AtomicU64::new(0),
            spun: AtomicU64::new(0),
            capped: AtomicU64::new(0),
            native_only: AtomicU64::new(0),
            margin_overrun: AtomicU64::new(0),
            spin_time_ns: AtomicU64::new(0),
            interrupts: AtomicU64::new(0),
            waits: AtomicU64::new(0),
            waker_panics: AtomicU64::new(0),
            fire_late_total_ns: AtomicU64::new(0),
            fire_late_max_ns: AtomicU64::new(0),
            lock_waits: AtomicU64::new(0),
        }
    }

    /// Cuts the thread's wait short because an earlier timer was registered.
    pub(crate) fn interrupt(&self) {
        self.interrupts.fetch_add(1, Relaxed);
        self.waiter.notify();
    }

    /// Wakes the thread so it sees that the driver is gone.
    pub(crate) fn wake_to_exit(&self) {
        self.waiter.notify();
    }

    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        let ns = self.cpu_time_ns.load(Relaxed);
        (ns != NEVER_NS).then(|| Duration::from_nanos(ns))
    }

    pub(crate) fn stats(&self) -> DriverStats {
        DriverStats {
            wakes: self.wakes.load(Relaxed),
            spun: self.spun.load(Relaxed),
            capped: self.capped.load(Relaxed),
            native_only: self.native_only.load(Relaxed),
            margin_overrun: self.margin_overrun.load(Relaxed),
            spin_time: Duration::from_nanos(self.spin_time_ns.load(Relaxed)),
            interrupts: self.interrupts.load(Relaxed),
            waits: self.waits.load(Relaxed),
            waker_panics: self.waker_panics.load(Relaxed),
            fire_lateness_total: Duration::from_nanos(self.fire_late_total_ns.load(Relaxed)),
            fire_lateness_max: Duration::from_nanos(self.fire_late_max_ns.load(Relaxed)),
            lock_waits: self.lock_waits.load(Relaxed),
            max_pending: 0,
        }
    }

    /// Counts a wait for the timers' lock: another thread held it.
    pub(crate) fn count_lock_wait(&self) {
        self.lock_waits.fetch_add(1, Relaxed);
    }

    /// Counts a learned plan that was capped or left without a margin.
    pub(crate) fn count_plan(&self, plan: Option<Plan>) {
        match plan {
            Some(Plan::Capped { .. }) => _ = self.capped.fetch_add(1, Relaxed),
            Some(Plan::Native { .. }) => _ = self.native_only.fetch_add(1, Relaxed),
            Some(Plan::Hybrid { .. } | Plan::Spin { .. }) | None => {}
        }
    }

    /// Counts a sleep that spun for `spun` before completing.
    pub(crate) fn count_spin(&self, spun: Duration) {
        self.spun.fetch_add(1, Relaxed);
        self.spin_time_ns.fetch_add(nanos(spun), Relaxed);
    }

    /// Counts a sleep fired early by a margin, yet polled only at or after its deadline.
    pub(crate) fn count_overrun(&self) {
        self.margin_overrun.fetch_add(1, Relaxed);
    }

    fn publish_cpu_time(&self) {
        if let Some(cpu) = sys::Os::thread_cpu_time() {
            self.cpu_time_ns.store(nanos(cpu), Relaxed);
        }
    }

    /// Wakes every task in `wakers`; a panicking `wake` is counted, not propagated, so one
    /// broken waker cannot stop every other timer of the process.
    ///
    /// Each task's memory is prefetched first, for the whole batch: a wake writes the task's
    /// state word, cold in the executor's memory, and the misses then overlap instead of
    /// coming one after another (`docs/driver-cost.md`).
    fn wake_all(&self, wakers: &mut Vec<Waker>) {
        self.wakes.fetch_add(wakers.len() as u64, Relaxed);
        wakers.iter().for_each(sys::prefetch_waker);
        for waker in wakers.drain(..) {
            if catch_unwind(AssertUnwindSafe(|| waker.wake())).is_err() {
                self.waker_panics.fetch_add(1, Relaxed);
            }
        }
    }
}

/// Starts the driver thread; it reports on `started` once its wait is set up.
pub(crate) fn spawn(
    shared: Weak<Shared>,
    core: Arc<Core>,
    started: mpsc::Sender<()>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("punctual-timer".to_string())
        .spawn(move || {
            let Some(driver) = shared.upgrade() else {
                return;
            };
            driver.set_timer_info(core.waiter.timer_info());
            driver.apply_realtime_priority();
            let epoch = driver.epoch();
            let pace = Pace::new(driver.gathers());
            drop(driver);
            core.publish_cpu_time();
            let _ = started.send(());
            drop(started);
            run(&shared, &core, epoch, pace);
        })
        .map(drop)
}

fn run(shared: &Weak<Shared>, core: &Core, epoch: Instant, mut pace: Pace) {
    let mut wakers = Vec::new();
    let mut cpu_time_read = Instant::now();
    let now_ns = || nanos(Instant::now().saturating_duration_since(epoch));
    loop {
        // Held only while looking at the heap, so the driver's last handle can end it.
        let Some(driver) = shared.upgrade() else {
            return;
        };
        let (expired, next, spare) = {
            let mut locked = driver.lock();
            let now_ns = now_ns();
            let expired = locked.timers.expire(now_ns, BATCH, &mut wakers);
            core.fired_through.publish(&locked.timers);
            let earliest = locked.timers.earliest();
            let idle = expired.fired == 0
                && earliest.map_or(true, |ns| ns.saturating_sub(now_ns) >= nanos(TRIM_BEFORE));
            let spare = idle.then(|| locked.timers.trim());
            let next = pace.after_pass(now_ns, expired.fired, earliest);
            // What a registration compares its fire time with: one earlier than a planned
            // fire time interrupts the wait; while awake or gathering, none does.
            let plan = match next {
                Next::Now | Next::Gather(_) => 0,
                Next::At(ns) => ns,
                Next::Idle => NEVER_NS,
            };
            core.planned_ns.store(plan, Relaxed);
            (expired, next, spare)
        };
        drop(driver);
        drop(spare);
        let wake_ns = match next {
            Next::Now => {
                core.fire_late_total_ns
                    .fetch_add(expired.late_total_ns, Relaxed);
                core.fire_late_max_ns
                    .fetch_max(expired.late_max_ns, Relaxed);
                core.wake_all(&mut wakers);
                continue;
            }
            Next::At(ns) | Next::Gather(ns) => Some(ns),
            Next::Idle => None,
        };
        let now = Instant::now();
        if wake_ns.is_none() || now.saturating_duration_since(cpu_time_read) >= CPU_TIME_EVERY {
            core.publish_cpu_time();
            cpu_time_read = now;
        }
        // A wait ends at the fire time, early on a notification (an earlier timer, or the
        // driver's end), or a little early when the OS clock and `Instant` disagree: in each
        // case the loop looks at the heap again.
        let wake_at = wake_ns.and_then(|ns| epoch.checked_add(Duration::from_nanos(ns)));
        if wake_at.map_or(true, |at| Instant::now() < at) {
            core.waits.fetch_add(1, Relaxed);
            core.waiter.wait(wake_at);
            pace.woke(now_ns());
        }
        core.planned_ns.store(0, Relaxed);
    }
}
