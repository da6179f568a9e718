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
//! The rest of the crate names only `sys::Os` and the types re-exported here; it never
//! writes `cfg(target_os)`. Unsafe code lives here and nowhere else.

use std::time::{Duration, Instant};

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
