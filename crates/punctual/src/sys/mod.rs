//! The library's platform layer: the only place in this crate that talks to the operating
//! system.
//!
//! The waits and clocks come from `punctual-sys`, the platform layer the workspace's crates
//! share (the native wait, the async driver's interruptible wait, the thread CPU clock);
//! [`Platform`] and [`DriverWait`] put them in the library's terms, once, for every OS.
//! What only the library needs lives here: per OS a `mod.rs` with a unit struct `Os`
//! implementing [`RealTime`], the controls behind `crate::rt`, so the compiler checks each
//! backend against the same interface. Exactly one is compiled in:
//!
//! | backend      | used on        | real-time controls                                                   |
//! |--------------|----------------|----------------------------------------------------------------------|
//! | `linux/`     | Linux, Android | `rt.rs` (slack, DMA latency, memory, throttling), `sched.rs`, `affinity.rs` |
//! | `macos/`     | macOS, iOS     | `rt.rs`: Mach thread policies, `pthread` scheduling                   |
//! | `windows/`   | Windows        | `rt.rs`: thread priorities, affinity masks                            |
//! | `generic.rs` | anything else  | every control `Unsupported`                                           |
//!
//! `punctual_sys::backends!` picks the backend, as it does for every crate of the
//! workspace; `generic.rs` is compiled into every test build too. The rest of the crate
//! names only `sys::Os` and the types re-exported here; it never writes `cfg(target_os)`.
//! Unsafe code lives here and nowhere else.

use std::fmt;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use crate::rt::{RtError, RtThrottling, Scheduling};
use crate::TimerInfo;

mod prefetch;

pub(crate) use prefetch::{prefetch_ref, prefetch_waker};

/// The native wait and clock, in the library's terms.
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

/// The async timer driver's sleep in the library's terms: its `wait` and `notify` are
/// [`Waiter`]'s own (`punctual-sys`), one thread waiting until a deadline and any other
/// cutting the wait short, and this adds the description the driver reports.
pub(crate) trait DriverWait {
    /// Describes the wait as the calling (waiting) thread sees it, having set the thread up
    /// for it (timer slack on Linux).
    fn timer_info(&self) -> TimerInfo;
}

/// The real-time controls every backend provides; see `crate::rt` for what each means.
///
/// What an OS lacks is `RtError::Unsupported`, never a pretence: every control defaults to
/// that, named for [`RealTime::PLATFORM`], and a backend overrides what its OS has (the
/// fallback, `generic.rs`, overrides none). Priorities arrive already checked against
/// `priority_range`.
pub(crate) trait RealTime {
    /// An open request for a CPU wake-up latency, withdrawn when dropped.
    type DmaLatency: fmt::Debug + Send + Sync;

    /// The platform an `RtError::Unsupported` names.
    const PLATFORM: &'static str;

    /// `RtError::Unsupported` for `what`, on this platform.
    fn unsupported<T>(what: &'static str) -> Result<T, RtError> {
        Err(RtError::Unsupported {
            what,
            platform: Self::PLATFORM,
        })
    }

    fn timer_slack() -> Result<Duration, RtError> {
        Self::unsupported("timer slack")
    }
    fn set_timer_slack(_slack: Duration) -> Result<(), RtError> {
        Self::unsupported("timer slack")
    }
    fn current_scheduling() -> Result<Scheduling, RtError> {
        Self::unsupported("reading the scheduling policy")
    }
    fn scheduling_of(_pid: u32) -> Result<Scheduling, RtError> {
        Self::unsupported("reading another process's scheduling")
    }
    /// Where the OS has a single real-time level and ignores the number:
    /// [`PORTABLE_PRIORITIES`].
    fn priority_range() -> RangeInclusive<i32> {
        PORTABLE_PRIORITIES
    }
    fn set_realtime_priority(_priority: i32) -> Result<Scheduling, RtError> {
        Self::unsupported("real-time priority")
    }
    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        Self::unsupported("setting the scheduling policy")
    }
    fn hold_dma_latency(_latency_us: i32) -> Result<Self::DmaLatency, RtError> {
        Self::unsupported("a CPU wake-up latency request (/dev/cpu_dma_latency)")
    }
    fn lock_memory() -> Result<(), RtError> {
        Self::unsupported("locking all memory (mlockall)")
    }
    fn unlock_memory() -> Result<(), RtError> {
        Self::unsupported("locking all memory (mlockall)")
    }
    fn set_affinity(_cpus: &[usize]) -> Result<(), RtError> {
        Self::unsupported("CPU affinity")
    }
    fn available_cpus() -> Result<Vec<usize>, RtError> {
        Self::unsupported("CPU affinity")
    }
    /// `None` where the OS has no real-time throttling to report.
    fn rt_throttling() -> Option<RtThrottling> {
        None
    }
    fn keep_timer_resolution() -> Result<(), RtError> {
        Self::unsupported("opting out of timer-resolution power throttling")
    }
}

/// The DMA-latency request type of the backend in use.
pub(crate) type DmaLatency = <Os as RealTime>::DmaLatency;

/// The request type of backends that cannot hold one: it has no values.
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum NoDmaLatency {}

/// The priorities accepted where the OS has a single real-time level and ignores the number:
/// the Linux `SCHED_FIFO` range, so one setting works everywhere.
pub(crate) const PORTABLE_PRIORITIES: RangeInclusive<i32> = 1..=99;

punctual_sys::backends!(Os);

/// The waiter of the async driver.
pub(crate) use punctual_sys::Waiter;

/// Which process the caller is in, as far as forks go: the async driver's thread belongs to
/// the generation that started it.
pub(crate) use punctual_sys::fork_generation;

/// The OS's plain sleep, what [`quantum::probe`](crate::quantum::probe) times.
pub(crate) use punctual_sys::{plain_sleep, PLAIN_SLEEP};

impl Platform for Os {
    const INITIAL_MARGIN: Duration = punctual_sys::INITIAL_MARGIN;

    fn wait_until(deadline: Instant, now: Instant) {
        punctual_sys::wait_until(deadline, now);
    }

    fn timer_info() -> TimerInfo {
        timer_info(punctual_sys::native_timer())
    }

    fn thread_cpu_time() -> Option<Duration> {
        punctual_sys::thread_cpu_time()
    }
}

impl DriverWait for Waiter {
    fn timer_info(&self) -> TimerInfo {
        timer_info(self.timer())
    }
}

/// A wait's description with the calling thread's timer slack in force, where the OS has
/// one.
fn timer_info(timer: punctual_sys::NativeTimer) -> TimerInfo {
    TimerInfo {
        mechanism: timer.mechanism,
        high_resolution: timer.high_resolution,
        resolution: timer.resolution,
        timer_slack: <Os as RealTime>::timer_slack().ok(),
        degraded: timer.degraded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_thread_cpu_time_grows_with_work() {
        let Some(before) = Os::thread_cpu_time() else {
            return;
        };
        // Spin until the clock moves, for up to 10 s of wall time: a clock that counts whole
        // scheduler ticks (Windows' GetThreadTimes) moves only once the thread has been
        // charged a tick, which on a loaded machine takes longer than any fixed spin.
        let start = Instant::now();
        let mut after = before;
        while after <= before && start.elapsed() < Duration::from_secs(10) {
            for _ in 0..10_000 {
                std::hint::spin_loop();
            }
            after = Os::thread_cpu_time().expect("the clock worked once");
        }
        assert!(
            after > before,
            "{before:?} then {after:?} after 10 s of spinning"
        );
    }

    #[test]
    fn the_drivers_wait_keeps_notifications_and_names_its_mechanism() {
        let waiter = Waiter::new().expect("a waiter");
        waiter.notify();
        assert_eq!(waiter.wait(None), punctual_sys::Woken::Other);
        assert_eq!(waiter.timer_info().mechanism, waiter.timer().mechanism);
    }
}
