//! The driver thread: fire what is due, then sleep natively (and, with a spin tail, spin)
//! until the next deadline, or until a timer earlier than that is registered.

use std::hint;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Weak};
use std::task::Waker;
use std::time::{Duration, Instant};

use super::driver::{DriverStats, Shared, SpinTail, NEVER_NS};
use crate::margin::{MarginEstimator, Plan};
use crate::sys::{self, DriverWait, Platform, Woken};

/// How many timers one pass fires before letting registrations (and completing sleeps) take
/// the lock again: at 100,000 timers, 64 made tasks wake sooner than 1024 did.
const BATCH: usize = 64;
/// How stale the published CPU time may get while the driver is busy: reading the thread's
/// CPU clock is a system call, too dear for every one of thousands of short waits.
const CPU_TIME_EVERY: Duration = Duration::from_millis(1);

/// What the driver thread shares with the handles, beyond the timers themselves; it
/// outlives [`Shared`], which the thread only holds weakly.
pub(crate) struct Core {
    waiter: sys::Waiter,
    /// The deadline the thread sleeps towards, in the driver's nanoseconds: [`NEVER_NS`]
    /// when it has no timer, 0 while it is awake and will look at the heap anyway. Written
    /// under the timers' lock (or by the thread on waking), so a registration that sees a
    /// later plan interrupts the wait, and one that sees 0 can leave it to the thread.
    pub(crate) planned_ns: AtomicU64,
    cpu_time_ns: AtomicU64,
    wakes: AtomicU64,
    spun: AtomicU64,
    capped: AtomicU64,
    native_only: AtomicU64,
    native_late: AtomicU64,
    spin_time_ns: AtomicU64,
    interrupts: AtomicU64,
    waker_panics: AtomicU64,
    fire_late_total_ns: AtomicU64,
    fire_late_max_ns: AtomicU64,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(NEVER_NS - 1)
}

impl Core {
    pub(crate) fn new(waiter: sys::Waiter) -> Core {
        Core {
            waiter,
            planned_ns: AtomicU64::new(NEVER_NS),
            cpu_time_ns: AtomicU64::new(NEVER_NS),
            wakes: AtomicU64::new(0),
            spun: AtomicU64::new(0),
            capped: AtomicU64::new(0),
            native_only: AtomicU64::new(0),
            native_late: AtomicU64::new(0),
            spin_time_ns: AtomicU64::new(0),
            interrupts: AtomicU64::new(0),
            waker_panics: AtomicU64::new(0),
            fire_late_total_ns: AtomicU64::new(0),
            fire_late_max_ns: AtomicU64::new(0),
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
            native_late: self.native_late.load(Relaxed),
            spin_time: Duration::from_nanos(self.spin_time_ns.load(Relaxed)),
            interrupts: self.interrupts.load(Relaxed),
            waker_panics: self.waker_panics.load(Relaxed),
            fire_lateness_total: Duration::from_nanos(self.fire_late_total_ns.load(Relaxed)),
            fire_lateness_max: Duration::from_nanos(self.fire_late_max_ns.load(Relaxed)),
            max_pending: 0,
        }
    }

    fn publish_cpu_time(&self) {
        if let Some(cpu) = sys::Os::thread_cpu_time() {
            self.cpu_time_ns.store(nanos(cpu), Relaxed);
        }
    }

    /// Wakes every task in `wakers`; a panicking `wake` is counted, not propagated, so one
    /// broken waker cannot stop every other timer of the process.
    fn wake_all(&self, wakers: &mut Vec<Waker>) {
        self.wakes.fetch_add(wakers.len() as u64, Relaxed);
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
            let tail = Tail::new(driver.config().tail());
            let epoch = driver.epoch();
            drop(driver);
            core.publish_cpu_time();
            let _ = started.send(());
            drop(started);
            run(&shared, &core, tail, epoch);
        })
        .map(drop)
}

fn run(shared: &Weak<Shared>, core: &Core, mut tail: Tail, epoch: Instant) {
    let mut wakers = Vec::new();
    let mut spun = Duration::ZERO;
    let mut cpu_time_read = Instant::now();
    loop {
        // Held only while looking at the heap, so the driver's last handle can end it.
        let Some(driver) = shared.upgrade() else {
            return;
        };
        let (expired, next_ns) = {
            let mut timers = driver.lock();
            let now_ns = nanos(Instant::now().saturating_duration_since(epoch));
            let spun_ns = u32::try_from(spun.as_nanos()).unwrap_or(u32::MAX);
            let expired = timers.expire(now_ns, spun_ns, BATCH, &mut wakers);
            let next = timers.earliest();
            let plan = if expired.fired > 0 {
                0
            } else {
                next.unwrap_or(NEVER_NS)
            };
            core.planned_ns.store(plan, Relaxed);
            (expired, next)
        };
        drop(driver);
        spun = Duration::ZERO;
        if expired.fired > 0 {
            core.fire_late_total_ns
                .fetch_add(expired.late_total_ns, Relaxed);
            core.fire_late_max_ns
                .fetch_max(expired.late_max_ns, Relaxed);
            core.wake_all(&mut wakers);
            continue;
        }
        let now = Instant::now();
        if next_ns.is_none() || now.saturating_duration_since(cpu_time_read) >= CPU_TIME_EVERY {
            core.publish_cpu_time();
            cpu_time_read = now;
        }
        match next_ns {
            None => {
                core.waiter.wait(None);
            }
            Some(ns) => match epoch.checked_add(Duration::from_nanos(ns)) {
                Some(deadline) => spun = tail.wait(core, deadline, ns),
                None => {
                    core.waiter.wait(None);
                }
            },
        }
        core.planned_ns.store(0, Relaxed);
    }
}

/// The spin tail as the thread runs it.
enum Tail {
    None,
    Fixed(Duration),
    Learned(Box<MarginEstimator>),
}

impl Tail {
    fn new(config: SpinTail) -> Tail {
        match config {
            SpinTail::None => Tail::None,
            SpinTail::Fixed(margin) => Tail::Fixed(margin),
            // Validated when the driver was made.
            SpinTail::Learned(config) => {
                MarginEstimator::new(config).map_or(Tail::None, |e| Tail::Learned(Box::new(e)))
            }
        }
    }

    /// Waits for `deadline` (`deadline_ns` in the driver's nanoseconds); returns how long it
    /// spun. Returns early, without reaching the deadline, when an earlier timer arrives.
    fn wait(&mut self, core: &Core, deadline: Instant, deadline_ns: u64) -> Duration {
        let start = Instant::now();
        if start >= deadline {
            return Duration::ZERO;
        }
        let margin = match self {
            Tail::None => Duration::ZERO,
            Tail::Fixed(margin) => *margin,
            Tail::Learned(estimator) => {
                let plan = estimator.plan(deadline - start);
                match plan {
                    Plan::Hybrid { .. } => {}
                    Plan::Capped { .. } => _ = core.capped.fetch_add(1, Relaxed),
                    Plan::Native { .. } => _ = core.native_only.fetch_add(1, Relaxed),
                }
                plan.margin()
            }
        };
        let target = deadline.checked_sub(margin).unwrap_or(start).max(start);
        let native_woke = loop {
            let now = Instant::now();
            if now >= target {
                break now;
            }
            if core.waiter.wait(Some(target)) == Woken::Other {
                // Interrupted: an earlier timer, or the driver's end. Look again.
                return Duration::ZERO;
            }
            let woke = Instant::now();
            if woke >= target {
                if let Tail::Learned(estimator) = self {
                    estimator.record(target - start, woke - target);
                }
                break woke;
            }
        };
        if native_woke >= deadline {
            if margin > Duration::ZERO {
                core.native_late.fetch_add(1, Relaxed);
            }
            return Duration::ZERO;
        }
        let woke = loop {
            let now = Instant::now();
            if now >= deadline || core.planned_ns.load(Relaxed) < deadline_ns {
                break now;
            }
            hint::spin_loop();
        };
        let spun = woke - native_woke;
        core.spun.fetch_add(1, Relaxed);
        core.spin_time_ns.fetch_add(nanos(spun), Relaxed);
        spun
    }
}
