//! The platform layer: the only place that talks to the operating system.
//!
//! Every backend is a file with a unit struct `Os` that implements [`Platform`], so the
//! compiler checks each one against the same interface. Exactly one is compiled in:
//!
//! | file         | used on                  | native wait                                          |
//! |--------------|--------------------------|------------------------------------------------------|
//! | `linux.rs`   | Linux, Android           | `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`    |
//! | `macos.rs`   | macOS, iOS               | `mach_wait_until`                                    |
//! | `windows.rs` | Windows                  | high-resolution waitable timer, cached per thread    |
//! | `generic.rs` | anything else            | `std::thread::sleep`                                 |
//!
//! Each `Os` also implements [`RealTime`], the controls behind `crate::rt`; the Linux,
//! macOS and Windows ones live in a `rt.rs` (and siblings) under the backend's folder.
//!
//! The rest of the crate names only `sys::Os` and the types re-exported here; it never
//! writes `cfg(target_os)`. Unsafe code lives here and nowhere else.

use std::fmt;
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
pub(crate) use linux::Os;

#[cfg(any(target_os = "macos", target_os = "ios"))]
mod macos;
#[cfg(any(target_os = "macos", target_os = "ios"))]
pub(crate) use macos::Os;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::Os;

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
pub(crate) use generic::Os;

/// The time from `now` to `deadline` in whole nanoseconds, saturating at `u64::MAX`
/// (about 584 years). Shared by the backends that compute an OS-clock target.
#[allow(dead_code)]
pub(crate) fn nanos_until(deadline: Instant, now: Instant) -> u64 {
    u64::try_from(deadline.saturating_duration_since(now).as_nanos()).unwrap_or(u64::MAX)
}
