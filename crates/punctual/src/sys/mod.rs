//! The platform layer: the only place that talks to the operating system.
//!
//! Every backend provides a unit struct `Os` that implements [`Platform`] and a struct
//! `Waiter` that implements [`DriverWait`] (the async timer driver's sleep), so the compiler
//! checks each one against the same interface. Exactly one is compiled in:
//!
//! | backend      | used on        | native wait                                       | driver wait                                                        |
//! |--------------|----------------|---------------------------------------------------|--------------------------------------------------------------------|
//! | `linux/`     | Linux, Android | `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` | `futex(FUTEX_WAIT_BITSET)`, absolute `CLOCK_MONOTONIC` timeout      |
//! | `macos/`     | macOS, iOS     | `mach_wait_until`                                 | `kqueue`: `EVFILT_TIMER` (`NOTE_MACHTIME \| NOTE_ABSOLUTE`) + `EVFILT_USER` |
//! | `windows/`   | Windows        | high-resolution waitable timer, cached per thread | high-resolution waitable timer + event, `WaitForMultipleObjects`   |
//! | `generic.rs` | anything else  | `std::thread::sleep`                              | `Condvar::wait_timeout`                                            |
//!
//! Each `Os` also implements [`RealTime`], the controls behind `crate::rt`; the Linux,
//! macOS and Windows ones live in a `rt.rs` (and siblings) under the backend's folder.
//!
//! The rest of the crate names only `sys::Os` and the types re-exported here; it never
//! writes `cfg(target_os)`. Unsafe code lives here and nowhere else.

use std::fmt;
use std::io;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use crate::rt::{RtError, RtThrottling, Scheduling};
use crate::TimerInfo;

/// What every backend provides.
pub(crate) trait Platform {
    /// How early the hybrid strategy starts spinning before it has measured anything on
    /// this thread: a little above the typical oversleep of [`Platform::wait_until`].
    const INITIAL_MARGIN: Duration;

    /// Blocks the calling thread, without spinning, until about `deadline`.
    ///
    /// `now` was read just before the call and is before `deadline`. One call is one OS
    /// wait (retried on `EINTR` where that applies); it may return before `deadline` when
    /// the OS clock and [`Instant`] disagree by a few nanoseconds, so callers re-check
    /// the clock and call again. Never panics.
    fn wait_until(deadline: Instant, now: Instant);

    /// Describes the native timer as the calling thread sees it.
    fn timer_info() -> TimerInfo;

    /// The CPU time the calling thread has used, or `None` where the OS does not say.
    fn thread_cpu_time() -> Option<Duration>;
}

/// How a wait of [`DriverWait::wait`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woken {
    /// The timeout expired: the wait ran its whole length, so its oversleep is a fair sample.
    TimedOut,
    /// [`DriverWait::notify`] was called, or the OS ended the wait for its own reasons.
    Other,
}

/// The async timer driver's sleep: one thread waits until a deadline, and any other thread
/// can cut the wait short (a timer earlier than the one being waited for was registered).
pub(crate) trait DriverWait: Sized + Send + Sync {
    /// Makes the OS objects of a waiter.
    fn new() -> io::Result<Self>;

    /// Blocks the calling thread until about `deadline` (`None`: until notified) or until
    /// [`DriverWait::notify`]. A notification made before the call, since the last wait
    /// returned, ends the wait at once: none is lost. Like [`Platform::wait_until`] it may
    /// return a little before `deadline`; the caller re-checks the clock. Only one thread
    /// waits on a waiter at a time. Never panics.
    fn wait(&self, deadline: Option<Instant>) -> Woken;

    /// Ends the current or the next [`DriverWait::wait`]. Callable from any thread.
    fn notify(&self);

    /// Describes the wait as the calling (waiting) thread sees it, having set the thread up
    /// for it (timer slack on Linux).
    fn timer_info(&self) -> TimerInfo;
}

/// The real-time controls every backend provides; see `crate::rt` for what each means.
///
/// A backend returns `RtError::Unsupported` for what its OS lacks rather than pretend.
/// Priorities arrive already checked against `priority_range`.
pub(crate) trait RealTime {
    /// An open request for a CPU wake-up latency, withdrawn when dropped.
    type DmaLatency: fmt::Debug + Send + Sync;

    fn timer_slack() -> Result<Duration, RtError>;
    fn set_timer_slack(slack: Duration) -> Result<(), RtError>;
    fn current_scheduling() -> Result<Scheduling, RtError>;
    fn scheduling_of(pid: u32) -> Result<Scheduling, RtError>;
    fn priority_range() -> RangeInclusive<i32>;
    fn set_realtime_priority(priority: i32) -> Result<Scheduling, RtError>;
    fn set_normal_scheduling() -> Result<Scheduling, RtError>;
    fn hold_dma_latency(latency_us: i32) -> Result<Self::DmaLatency, RtError>;
    fn lock_memory() -> Result<(), RtError>;
    fn unlock_memory() -> Result<(), RtError>;
    fn set_affinity(cpus: &[usize]) -> Result<(), RtError>;
    fn available_cpus() -> Result<Vec<usize>, RtError>;
    fn rt_throttling() -> Option<RtThrottling>;
    fn keep_timer_resolution() -> Result<(), RtError>;
}

/// The DMA-latency request type of the backend in use.
pub(crate) type DmaLatency = <Os as RealTime>::DmaLatency;

/// The request type of backends that cannot hold one: it has no values.
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum NoDmaLatency {}

/// The priorities accepted where the OS has a single real-time level and ignores the number:
/// the Linux `SCHED_FIFO` range, so one setting works everywhere.
#[allow(dead_code)]
pub(crate) const PORTABLE_PRIORITIES: RangeInclusive<i32> = 1..=99;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use linux::{Os, Waiter};

#[cfg(any(target_os = "macos", target_os = "ios"))]
mod macos;
#[cfg(any(target_os = "macos", target_os = "ios"))]
pub(crate) use macos::{Os, Waiter};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::{Os, Waiter};

// Compiled into every test build too, so the fallback is known to fit the interface.
#[cfg(any(
    test,
    not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        windows
    ))
))]
mod generic;
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    windows
)))]
pub(crate) use generic::{Os, Waiter};

/// The time from `now` to `deadline` in whole nanoseconds, saturating at `u64::MAX`
/// (about 584 years). Shared by the backends that compute an OS-clock target.
#[allow(dead_code)]
pub(crate) fn nanos_until(deadline: Instant, now: Instant) -> u64 {
    u64::try_from(deadline.saturating_duration_since(now).as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// What the driver relies on from every waiter: timeouts that end (and are not early
    /// once re-checked), and notifications that are never lost, made before or during a wait.
    pub(super) fn check_waiter<W: DriverWait + 'static>() {
        let waiter = Arc::new(W::new().expect("a waiter"));
        for micros in [0, 1, 50, 500, 2_000] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            while Instant::now() < deadline {
                waiter.wait(Some(deadline));
            }
        }
        waiter.notify();
        assert_eq!(
            waiter.wait(None),
            Woken::Other,
            "a notification made before the wait ends it"
        );
        let notifier = {
            let waiter = Arc::clone(&waiter);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                waiter.notify();
            })
        };
        let far = Instant::now() + Duration::from_secs(3600);
        while waiter.wait(Some(far)) != Woken::Other {}
        notifier.join().unwrap();
        assert!(Instant::now() < far);
        let soon = Instant::now() + Duration::from_millis(1);
        let mut timed_out = false;
        while Instant::now() < soon {
            timed_out |= waiter.wait(Some(soon)) == Woken::TimedOut;
        }
        assert!(timed_out, "a wait that runs its length says so");
    }

    #[test]
    fn this_platforms_waiter_keeps_the_contract() {
        check_waiter::<Waiter>();
    }

    #[test]
    fn generic_waiter_keeps_the_contract() {
        check_waiter::<generic::Waiter>();
    }

    #[test]
    fn driver_thread_cpu_time_grows_with_work() {
        let Some(before) = Os::thread_cpu_time() else {
            return;
        };
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(30) {
            std::hint::spin_loop();
        }
        let after = Os::thread_cpu_time().expect("the clock worked once");
        assert!(after > before, "{before:?} then {after:?}");
    }
}
