//! The timer driver: its public handle, its configuration and counters, and the state shared
//! between the futures and the driver thread (`thread.rs`).

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex, MutexGuard, OnceLock, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use once_cell::race::OnceBox;

use super::tail::Tail;
use super::thread::{self, Core};
use super::timers::Timers;
use super::{Interval, Sleep};
use crate::grid::Grid;
use crate::margin::Plan;
use crate::rt::{self, RtError, Scheduling};
use crate::sys;
use crate::{saturating_nanos, Error, HybridConfig, TimerInfo};

/// How the last stretch before a sleep's deadline is waited: natively, or with a spin in
/// the sleeping task itself.
///
/// With a tail, the driver fires each timer a margin before its deadline, and the
/// [`Sleep`], polled within that margin, spins on the monotonic clock on its executor's
/// thread until the deadline, then completes. The spin is the task's, not the driver's,
/// because the cross-thread wake of the task is most of its lateness; see the
/// [module docs](super#the-spin-tail). While it spins, that executor runs nothing else.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub enum SpinTail {
    /// Sleep natively all the way (the default): the least CPU, and no task spins. While
    /// timers fall due densely (32 or more at one wake-up of the driver), the driver fires
    /// those due within 250 us of that wake-up together, up to that much later, never early
    /// (see the [module docs](super#how-it-works)).
    #[default]
    None,
    /// Fire each timer this long before its deadline (all of the wait, for a shorter one)
    /// and spin the rest, whatever it costs. Margins saturate at about 537 ms.
    Fixed(Duration),
    /// Learn the margin from the measured end-to-end delay (from each timer's fire time to
    /// its task's next poll: the driver's oversleep plus the executor's delay) and spin it
    /// within the CPU budget, as the hybrid [`Strategy`](crate::Strategy) does with a
    /// thread's oversleep; see [`margin`](crate::margin). The budget applies to each sleep:
    /// the margin is at most `budget` of the time from the sleep's first poll to its deadline.
    /// The end-to-end delay is longer than a thread's own oversleep (it adds the executor's
    /// wake-up), so for sleeps around 100 us a budget of a half, not the default quarter, may
    /// be what lets the margin cover it.
    Learned(HybridConfig),
}

/// How a [`Driver`]'s sleeps wait; the default sleeps natively, with no spin tail.
///
/// # Examples
///
/// ```
/// use punctual::future::{DriverConfig, SpinTail};
/// use punctual::HybridConfig;
///
/// let config = DriverConfig::new().with_spin_tail(SpinTail::Learned(HybridConfig::new().with_budget(0.1)));
/// assert!(config.validate().is_ok());
/// assert_eq!(config.realtime_priority(), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DriverConfig {
    spin_tail: SpinTail,
    realtime_priority: Option<i32>,
}

impl DriverConfig {
    /// Native waits only, no spin tail.
    pub fn new() -> DriverConfig {
        DriverConfig::default()
    }

    /// Ends each sleep with `tail`.
    pub fn with_spin_tail(mut self, tail: SpinTail) -> DriverConfig {
        self.spin_tail = tail;
        self
    }

    /// The spin tail each sleep ends with.
    pub fn spin_tail(&self) -> SpinTail {
        self.spin_tail
    }

    /// Runs the driver thread under real-time scheduling at `priority`, as
    /// [`rt::set_realtime_priority`] does for the calling thread: it then runs as soon as a
    /// timer is due, ahead of every time-sharing thread of the machine. (The tasks it wakes
    /// still wait for their executor's threads.) When the OS refuses, the driver runs at the
    /// default scheduling and [`Driver::realtime_scheduling`] says why.
    ///
    /// The driver thread blocks between timers, so it cannot starve its CPU unless the
    /// timers themselves come faster than it can fire them.
    pub fn with_realtime_priority(mut self, priority: i32) -> DriverConfig {
        self.realtime_priority = Some(priority);
        self
    }

    /// The real-time priority asked for the driver thread, if any; what the OS granted is
    /// [`Driver::realtime_scheduling`].
    pub fn realtime_priority(&self) -> Option<i32> {
        self.realtime_priority
    }

    /// Checks the learned tail's configuration and the real-time priority.
    ///
    /// # Errors
    ///
    /// Whatever [`HybridConfig::validate`] finds; [`Error::Realtime`] holding
    /// [`RtError::InvalidPriority`] for a priority outside [`rt::priority_range`].
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(priority) = self.realtime_priority {
            rt::check_priority(priority).map_err(Error::Realtime)?;
        }
        match &self.spin_tail {
            SpinTail::Learned(config) => config.validate(),
            SpinTail::None | SpinTail::Fixed(_) => Ok(()),
        }
    }
}

/// Counters of a [`Driver`] since it started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverStats {
    /// Timers fired (their wakers woken).
    pub wakes: u64,
    /// Sleeps that ended in a spin tail (polled within their margin, before the deadline).
    pub spun: u64,
    /// Sleeps whose learned margin the CPU budget cut short of the tail target.
    pub capped: u64,
    /// Sleeps planned without a margin: a learned tail with a CPU budget of zero.
    pub native_only: u64,
    /// Sleeps fired early by a margin whose task was polled only at or after the deadline:
    /// the margin was short of that end-to-end delay.
    pub margin_overrun: u64,
    /// Total time sleeps spent spinning, on their executors' threads.
    pub spin_time: Duration,
    /// Waits cut short because an earlier timer was registered.
    pub interrupts: u64,
    /// Times the driver thread went to sleep natively (each an OS wait).
    pub waits: u64,
    /// Wakers whose `wake` panicked; the driver caught the panic and carried on.
    pub waker_panics: u64,
    /// How late the driver fired its timers (its clock reading when it took them off the
    /// heap, minus their fire times: the deadline less the spin margin), summed; divide by
    /// [`DriverStats::wakes`] for the mean. A task's own
    /// [`Wake::lateness`](crate::Wake::lateness) adds its executor's delay.
    pub fire_lateness_total: Duration,
    /// The latest the driver fired any timer.
    pub fire_lateness_max: Duration,
    /// Times a thread found the timers' lock held and waited for it: a registration, a
    /// cancellation or the driver's own pass, against another thread's. Counted only when
    /// the lock was contended, so it costs nothing otherwise.
    pub lock_waits: u64,
    /// The most timers ever pending at once.
    pub max_pending: usize,
}

/// A timer driver: one thread that holds the pending deadlines of its [`Sleep`]s and
/// [`Interval`]s, sleeps natively until the earliest, and wakes the tasks due.
///
/// [`Driver::global`] is the one [`sleep`](super::sleep) and friends use; [`Driver::new`]
/// makes a private one (another thread, another spin tail). A `Driver` is a cheap handle:
/// clones share the driver, and its thread ends once the last handle and the last of its
/// timers are dropped.
///
/// # After `fork`
///
/// A child process has only the thread that called `fork(2)`, so no driver thread. A driver
/// (the global one included) used in a child forked after it started is replaced there, on
/// first use, by a new driver with the same configuration on a thread of the child's own; a
/// [`Sleep`] or [`Interval`] made in the parent and polled in the child moves to it, keeping
/// its deadline. The parent's pending timers stay the parent's: the child never fires them
/// (its copy of them is dropped, not woken, with the last handle that reaches it), and the
/// parent's driver carries on unaware. Nothing in the child waits for a lock or a start-up
/// that a parent's thread held when it forked.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::future::{Driver, DriverConfig};
///
/// let driver = Driver::new(DriverConfig::new())?;
/// let wake = futures::executor::block_on(driver.sleep(Duration::from_micros(300)));
/// assert!(wake.woke() >= wake.deadline());
/// assert_eq!(driver.pending(), 0);
/// # Ok::<(), punctual::Error>(())
/// ```
///
/// # Implementation notes
///
/// The timers' nanosecond fire times (the deadline, less the margin of a [`SpinTail`]) sit
/// in a ring of buckets for the next second, a hierarchical wheel beyond it, and an indexed
/// 4-ary heap for those registered within about half a millisecond of firing (`O(1)`
/// insert, cancel and reset in the ring and the wheel, `O(log n)` in the heap, no
/// allocation for a reset), behind one mutex. The thread waits with:
///
/// - **Linux**: `futex(2)` `FUTEX_WAIT_BITSET` with an absolute `CLOCK_MONOTONIC` timeout,
///   timer slack 1 ns (`PR_SET_TIMERSLACK`); an earlier timer `FUTEX_WAKE`s it.
/// - **macOS**: `kqueue(2)`, a one-shot `EVFILT_TIMER` with `NOTE_MACHTIME | NOTE_ABSOLUTE`
///   and an `EVFILT_USER` event to interrupt it.
/// - **Windows**: a high-resolution waitable timer and an event, `WaitForMultipleObjects`.
/// - **Other platforms**: `Condvar::wait_timeout`.
#[derive(Clone)]
pub struct Driver {
    shared: Arc<Shared>,
}

/// What the driver's lock guards: the pending timers, and the spin tail that plans their
/// margins and learns from their delays.
#[derive(Debug)]
pub(crate) struct Locked {
    pub(crate) timers: Timers,
    pub(crate) tail: Tail,
}

/// What the futures and the driver thread share.
pub(crate) struct Shared {
    locked: Mutex<Locked>,
    /// Deadlines are nanoseconds since this instant.
    epoch: Instant,
    core: Arc<Core>,
    config: DriverConfig,
    /// The tail learns from every fired timer's delay (a learned tail).
    learns: bool,
    timer_info: OnceLock<TimerInfo>,
    /// What became of [`DriverConfig::realtime_priority`], set by the thread as it starts.
    realtime: OnceLock<Result<Scheduling, RtError>>,
    /// The process whose thread this is (`punctual_sys::fork_generation`).
    generation: u64,
    /// This driver's stand-in in a child forked after it started, where it has no thread:
    /// started there on first use.
    successor: OnceBox<Driver>,
}

impl Driver {
    /// The process-wide driver, started on first use on a thread named `punctual-timer`,
    /// sleeping natively (no spin tail).
    ///
    /// In a child forked after it started, the child's own (see [After
    /// `fork`](Driver#after-fork)).
    ///
    /// # Panics
    ///
    /// When the OS refuses the driver its thread or its wait objects on first use; there is
    /// no sensible way to wait without them. [`Driver::new`] reports that as an error instead.
    pub fn global() -> &'static Driver {
        static GLOBAL: OnceBox<Driver> = OnceBox::new();
        GLOBAL
            .get_or_init(|| {
                Box::new(
                    Driver::new(DriverConfig::new()).unwrap_or_else(|error| {
                        panic!("punctual: the global timer driver: {error}")
                    }),
                )
            })
            .here()
    }

    /// Starts a private driver on a new thread named `punctual-timer`.
    ///
    /// # Errors
    ///
    /// [`HybridConfig::validate`]'s errors for a learned tail;
    /// [`Error::DriverUnavailable`] when the OS refuses the thread or the wait objects.
    pub fn new(config: DriverConfig) -> Result<Driver, Error> {
        config.validate()?;
        let unavailable =
            |what: &str, e: std::io::Error| Error::DriverUnavailable(format!("{what}: {e}"));
        let waiter = sys::Waiter::new().map_err(|e| unavailable("wait objects", e))?;
        let core = Arc::new(Core::new(waiter));
        let shared = Arc::new(Shared {
            locked: Mutex::new(Locked {
                timers: Timers::default(),
                tail: Tail::new(config.spin_tail()),
            }),
            epoch: Instant::now(),
            core: Arc::clone(&core),
            config,
            learns: matches!(config.spin_tail(), SpinTail::Learned(_)),
            timer_info: OnceLock::new(),
            realtime: OnceLock::new(),
            generation: sys::fork_generation(),
            successor: OnceBox::new(),
        });
        let (started, running) = mpsc::channel();
        thread::spawn(Arc::downgrade(&shared), core, started)
            .map_err(|e| unavailable("thread", e))?;
        running.recv().map_err(|_| {
            Error::DriverUnavailable("the driver thread ended while starting".to_string())
        })?;
        Ok(Driver { shared })
    }

    /// A [`Sleep`] for `duration` from now, on this driver; see [`super::sleep`].
    pub fn sleep(&self, duration: Duration) -> Sleep {
        Sleep::after(&self.here().shared, duration)
    }

    /// A [`Sleep`] until `deadline`, on this driver; see [`super::sleep_until`].
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep::until(&self.here().shared, deadline)
    }

    /// An [`Interval`] whose tick 0 is one `period` from now, on this driver.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn interval(&self, period: Duration) -> Result<Interval, Error> {
        Ok(Interval::new(
            &self.here().shared,
            Grid::starting_in_one_period(period)?,
        ))
    }

    /// An [`Interval`] whose tick 0 is due at `first` (which may be past), on this driver.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn interval_at(&self, first: Instant, period: Duration) -> Result<Interval, Error> {
        Ok(Interval::new(
            &self.here().shared,
            Grid::new(first, period)?,
        ))
    }

    /// Timers waiting for their deadline now (polled at least once, not yet fired, not
    /// dropped).
    pub fn pending(&self) -> usize {
        self.here().shared.lock().timers.pending()
    }

    /// Bytes of memory the driver's timer storage holds now: 40 bytes per pending timer,
    /// and up to twice that while its buffers have room to grow (52 per timer at 100,000
    /// timers, 41 at a million). Cancelling gives storage back as it goes; firing does not
    /// (the driver thread leaves it for its next wait of a millisecond or more), and all of it
    /// is given back once the driver has no timers. A [`Sleep`] itself is
    /// `size_of::<Sleep>()` more, wherever its task keeps it.
    pub fn allocated_bytes(&self) -> usize {
        self.here().shared.lock().timers.allocated_bytes()
    }

    /// The CPU time the driver thread has used: exact once it has no timers left, otherwise
    /// as of at most a millisecond before its latest wait; `None` where the OS has no
    /// per-thread CPU clock.
    ///
    /// # Implementation notes
    ///
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` on Linux and macOS, `GetThreadTimes` on
    /// Windows, read by the driver thread itself before it waits.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.here().shared.core.cpu_time()
    }

    /// The counters so far.
    pub fn stats(&self) -> DriverStats {
        let shared = &self.here().shared;
        let mut stats = shared.core.stats();
        stats.max_pending = shared.lock().timers.max_pending();
        stats
    }

    /// What a sleep of `wait` registered now would do: [`Plan::Native`] without a spin
    /// tail, [`Plan::Hybrid`] with a fixed one, the learned plan with a learned one.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use punctual::future::{Driver, DriverConfig, SpinTail};
    ///
    /// let tail = SpinTail::Fixed(Duration::from_micros(50));
    /// let driver = Driver::new(DriverConfig::new().with_spin_tail(tail))?;
    /// assert_eq!(driver.plan(Duration::from_millis(1)).margin(), Duration::from_micros(50));
    /// # Ok::<(), punctual::Error>(())
    /// ```
    #[doc(hidden)] // Research: how the tail plans, for replays; see `punctual::margin`.
    pub fn plan(&self, wait: Duration) -> Plan {
        let plan = self.here().shared.lock().tail.plan(wait);
        let margin = plan.planned.margin();
        plan.learned.unwrap_or(if margin.is_zero() {
            Plan::Native {
                wanted: Duration::ZERO,
            }
        } else {
            Plan::Hybrid { margin }
        })
    }

    /// The configuration the driver runs with.
    pub fn config(&self) -> DriverConfig {
        self.shared.config
    }

    /// What became of the [real-time priority](DriverConfig::with_realtime_priority) asked for
    /// the driver thread: `None` when none was asked, the scheduling in force when the OS
    /// granted it, and the OS's refusal (naming the ways to allow it) when it did not, in
    /// which case the thread runs at the default scheduling.
    ///
    /// # Examples
    ///
    /// ```
    /// use punctual::future::{Driver, DriverConfig};
    ///
    /// let driver = Driver::new(DriverConfig::new().with_realtime_priority(10))?;
    /// match driver.realtime_scheduling() {
    ///     Some(Ok(scheduling)) => println!("driver thread at {scheduling}"),
    ///     Some(Err(refused)) => println!("driver thread at the default scheduling: {refused}"),
    ///     None => unreachable!("a priority was asked"),
    /// }
    /// # Ok::<(), punctual::Error>(())
    /// ```
    pub fn realtime_scheduling(&self) -> Option<Result<&Scheduling, &RtError>> {
        self.here().shared.realtime.get().map(Result::as_ref)
    }

    /// How the driver thread waits, and whether that is degraded.
    pub fn timer_info(&self) -> TimerInfo {
        self.here()
            .shared
            .timer_info
            .get()
            .cloned()
            .expect("set before the driver is returned")
    }
}

impl Driver {
    /// This driver in the calling process: itself, or in a child forked after it started,
    /// its successor there.
    fn here(&self) -> &Driver {
        let generation = sys::fork_generation();
        let mut driver = self;
        while driver.shared.generation != generation {
            driver = driver.shared.successor();
        }
        driver
    }
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("pending", &self.pending())
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

/// Marks the driver's planned wake as "never" in [`Core::planned_ns`], and a CPU time not
/// read yet.
pub(crate) const NEVER_NS: u64 = u64::MAX;

/// `d` in whole nanoseconds, for the driver's clock and counters: [`saturating_nanos`], but
/// capped one below [`NEVER_NS`] (some 584 years), so no count is ever read as that marker.
pub(crate) fn nanos(d: Duration) -> u64 {
    saturating_nanos(d).min(NEVER_NS - 1)
}

impl Shared {
    /// The timers and the tail, whatever panicked while holding them: no code that can
    /// panic runs under this lock between two changes that must go together.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Locked> {
        match self.locked.try_lock() {
            Ok(locked) => locked,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                self.core.count_lock_wait();
                self.locked.lock().unwrap_or_else(PoisonError::into_inner)
            }
        }
    }

    /// Whether this driver's thread runs in the calling process, rather than in a parent
    /// this process was forked from.
    pub(crate) fn is_here(&self) -> bool {
        self.generation == sys::fork_generation()
    }

    /// The driver that serves the calling process for this one: see [`Driver::here`].
    pub(crate) fn here<'a>(self: &'a Arc<Shared>) -> &'a Arc<Shared> {
        let generation = sys::fork_generation();
        let mut shared = self;
        while shared.generation != generation {
            shared = &shared.successor().shared;
        }
        shared
    }

    /// This driver's stand-in in a forked child, started on first use with the same
    /// configuration. Successors are made in the process that needs them, so each one's
    /// generation is later than its predecessor's and the walks above end.
    ///
    /// Two threads of the child may both start one; one is kept and the other ends at once.
    fn successor(&self) -> &Driver {
        self.successor.get_or_init(|| {
            Box::new(Driver::new(self.config).unwrap_or_else(|error| {
                panic!("punctual: the timer driver of this forked child: {error}")
            }))
        })
    }

    pub(crate) fn core(&self) -> &Core {
        &self.core
    }

    pub(crate) fn learns(&self) -> bool {
        self.learns
    }

    /// Whether the driver thread gathers timers that fall due densely (`pace.rs`): only
    /// without a spin tail, whose margins a gathered fire would eat.
    pub(crate) fn gathers(&self) -> bool {
        self.config.spin_tail() == SpinTail::None
    }

    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    pub(crate) fn set_timer_info(&self, info: TimerInfo) {
        let _ = self.timer_info.set(info);
    }

    /// On the driver thread as it starts: asks for the configured real-time priority.
    pub(crate) fn apply_realtime_priority(&self) {
        if let Some(priority) = self.config.realtime_priority() {
            let _ = self.realtime.set(rt::set_realtime_priority(priority));
        }
    }

    /// `deadline` in the driver's nanoseconds, or `None` past what they can count (about
    /// 584 years from the driver's start): such a deadline never comes.
    pub(crate) fn nanos_of(&self, deadline: Instant) -> Option<u64> {
        Some(saturating_nanos(
            deadline.saturating_duration_since(self.epoch),
        ))
        .filter(|&ns| ns < NEVER_NS)
    }

    /// After registering a fire time under the lock (`_locked` is the proof): if the driver
    /// thread plans to wake later than it, moves the plan and returns true, and the caller
    /// must [`Shared::interrupt`] the driver once the lock is released.
    pub(crate) fn plan_earlier(&self, _locked: &Locked, deadline_ns: u64) -> bool {
        let planned = &self.core.planned_ns;
        if deadline_ns < planned.load(Ordering::Relaxed) {
            planned.store(deadline_ns, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    /// Cuts the driver thread's wait short.
    pub(crate) fn interrupt(&self) {
        self.core.interrupt();
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if self.is_here() {
            // The thread holds only a weak reference: wake it so it sees the driver is gone.
            self.core.wake_to_exit();
            return;
        }
        // A parent's driver, in a forked child: it has no thread to wake. Its timers are
        // dropped with it, unless the lock was held when the parent forked: then a change
        // may have been half made, and the storage is forgotten instead.
        let held_at_fork = matches!(self.locked.try_lock(), Err(TryLockError::WouldBlock));
        if held_at_fork {
            let empty = Locked {
                timers: Timers::default(),
                tail: Tail::new(SpinTail::None),
            };
            std::mem::forget(std::mem::replace(&mut self.locked, Mutex::new(empty)));
        }
    }
}

/// The handles cross threads, as executors move tasks: checked at compile time.
#[allow(dead_code)]
fn assert_send_sync() {
    fn both<T: Send + Sync>() {}
    both::<Driver>();
    both::<Sleep>();
    both::<Interval>();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One conversion for the driver's clock and counters; a count is never the marker,
    /// even at exactly `u64::MAX` nanoseconds (which the cap by `try_from` alone let through).
    #[test]
    fn nanos_saturate_below_the_never_marker() {
        assert_eq!(nanos(Duration::ZERO), 0);
        assert_eq!(nanos(Duration::from_nanos(1_500)), 1_500);
        assert_eq!(nanos(Duration::from_nanos(NEVER_NS - 1)), NEVER_NS - 1);
        assert_eq!(nanos(Duration::from_nanos(u64::MAX)), NEVER_NS - 1);
        assert_eq!(nanos(Duration::MAX), NEVER_NS - 1);
    }
}
