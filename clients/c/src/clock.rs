//! Nanoseconds on the OS monotonic clock, and their conversion to and from [`Instant`].
//!
//! `punctual_now_ns()` and every deadline in the C API are nanoseconds of the clock
//! [`Instant`] reads (`CLOCK_MONOTONIC` on Linux, `QueryPerformanceCounter` on Windows,
//! `CLOCK_UPTIME_RAW` on macOS), so a C caller can mix them with its own readings of that
//! clock and C++ with `std::chrono::steady_clock` on Linux. `Instant` does not say its
//! value, so a pair of readings ties the two together: first the OS clock (`anchor_ns`),
//! then `Instant::now()` (`anchor`), at or after it. A deadline in nanoseconds becomes the
//! instant `anchor + (deadline_ns - anchor_ns)`: as late as the gap between the two
//! readings, never early, on either clock. An instant becomes `anchor_ns + (instant -
//! anchor)`: never ahead of the OS clock. The two conversions are exact inverses, so a
//! deadline given in nanoseconds is reported back as the same number.
//!
//! Every deadline a C caller passes is late by that gap, so the anchor is the narrowest of
//! [`ANCHOR_TRIES`] pairs, each bracketed by two OS readings: a single pair taken on first
//! use may straddle a page fault or a preemption and make every sleep of the process that
//! much late (as the Python client's frame does, `clients/python/src/clock.rs`).

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use crate::status::{Failure, PUNCTUAL_E_OUT_OF_RANGE};
use crate::sys;

struct Anchor {
    ns: i64,
    instant: Instant,
}

/// How many pairs of readings the anchor is the narrowest of.
const ANCHOR_TRIES: usize = 64;

static ANCHOR: LazyLock<Anchor> = LazyLock::new(|| {
    let mut best: Option<(i64, Anchor)> = None;
    for _ in 0..ANCHOR_TRIES {
        let ns = sys::monotonic_ns();
        let instant = Instant::now();
        let gap = sys::monotonic_ns().saturating_sub(ns);
        if best.as_ref().map_or(true, |(least, _)| gap < *least) {
            best = Some((gap, Anchor { ns, instant }));
        }
    }
    best.map(|(_, anchor)| anchor)
        .expect("ANCHOR_TRIES is not zero")
});

/// `instant` in nanoseconds of the monotonic clock, or `None` past `i64::MAX`.
pub(crate) fn to_ns(instant: Instant) -> Option<i64> {
    let anchor = &*ANCHOR;
    match instant.checked_duration_since(anchor.instant) {
        Some(after) => anchor.ns.checked_add(i64::try_from(after.as_nanos()).ok()?),
        None => anchor
            .ns
            .checked_sub(i64::try_from((anchor.instant - instant).as_nanos()).ok()?),
    }
}

/// The instant at `ns` nanoseconds of the monotonic clock (checked non-negative by the
/// caller), or a failure when `Instant` cannot hold it.
pub(crate) fn to_instant(ns: i64) -> Result<Instant, Failure> {
    let anchor = &*ANCHOR;
    let instant = if ns >= anchor.ns {
        anchor.instant.checked_add(nanos(ns.abs_diff(anchor.ns)))
    } else {
        anchor.instant.checked_sub(nanos(anchor.ns.abs_diff(ns)))
    };
    instant.ok_or_else(|| {
        Failure::new(
            PUNCTUAL_E_OUT_OF_RANGE,
            format!("{ns} ns is beyond what this platform's monotonic clock can represent"),
        )
    })
}

/// Now, in nanoseconds of the monotonic clock.
pub(crate) fn now_ns() -> i64 {
    // The clock starts near boot: i64 nanoseconds last 292 years past it.
    to_ns(Instant::now()).unwrap_or(i64::MAX)
}

/// A duration as signed nanoseconds, saturated at `i64::MAX`.
pub(crate) fn duration_ns(duration: Duration) -> i64 {
    i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX)
}

/// `ns` nanoseconds as a duration.
pub(crate) fn nanos(ns: u64) -> Duration {
    Duration::from_nanos(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `Instant` read between two OS readings maps to no later than the second: the
    /// conversion is never ahead of the OS clock, whatever pair the anchor is.
    #[test]
    fn an_instant_maps_to_no_later_than_the_os_clock_after_it() {
        for _ in 0..1000 {
            let mapped = to_ns(Instant::now()).unwrap();
            let after = sys::monotonic_ns();
            assert!(mapped <= after, "{mapped} > {after}");
        }
    }

    #[test]
    fn nanoseconds_round_trip_exactly() {
        let now = now_ns();
        for ns in [0, 1, now - 1_000_000_007, now, now + 123_456_789_011] {
            let ns = ns.max(0);
            if let Ok(instant) = to_instant(ns) {
                assert_eq!(to_ns(instant), Some(ns));
            }
        }
    }

    #[test]
    fn now_is_never_ahead_of_the_os_clock() {
        for _ in 0..1000 {
            let ours = now_ns();
            let os = sys::monotonic_ns();
            assert!(ours <= os, "{ours} > {os}");
        }
    }
}
