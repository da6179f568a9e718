//! The library's clock (`std::time::Instant`) seen as Python's `time.perf_counter_ns()`.
//!
//! They are one clock on each OS: `clock_gettime(CLOCK_MONOTONIC)` on Linux, Mach absolute
//! time on macOS (`CLOCK_UPTIME_RAW` / `mach_absolute_time`), `QueryPerformanceCounter` on
//! Windows. (`time.monotonic()` is the same clock on Linux and macOS, but on Windows before
//! Python 3.13 it is `GetTickCount64`, 15.6 ms steps: hence `perf_counter`.) An `Instant`
//! cannot be built from a reading, so the frame pairs one `Instant` with the
//! `perf_counter_ns()` reading taken just before it: that `Instant` is at or after the
//! reading, so every deadline mapped through the frame falls at or after the one asked for,
//! late by at most the pair's spread ([`Frame::spread_ns`], tens of nanoseconds), which is
//! the narrowest of several tries.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// How many pairs of readings are taken to find the narrowest.
const TRIES: usize = 64;

/// One `Instant` and a `perf_counter_ns()` reading at or before it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    instant: Instant,
    ns: i128,
    spread_ns: i128,
}

static FRAME: OnceLock<Frame> = OnceLock::new();

impl Frame {
    /// The process's frame, measured on first use.
    pub(crate) fn get(py: Python<'_>) -> PyResult<&'static Frame> {
        if let Some(frame) = FRAME.get() {
            return Ok(frame);
        }
        let frame = Frame::measure(py)?;
        Ok(FRAME.get_or_init(|| frame))
    }

    fn measure(py: Python<'_>) -> PyResult<Frame> {
        let perf_counter_ns = py.import("time")?.getattr("perf_counter_ns")?;
        let read = || perf_counter_ns.call0()?.extract::<i64>().map(i128::from);
        let pair = || -> PyResult<Frame> {
            let before = read()?;
            let instant = Instant::now();
            let after = read()?;
            Ok(Frame {
                instant,
                ns: before,
                spread_ns: after - before,
            })
        };
        let mut best = pair()?;
        for _ in 1..TRIES {
            let frame = pair()?;
            if frame.spread_ns < best.spread_ns {
                best = frame;
            }
        }
        Ok(best)
    }

    /// How much later than `perf_counter_ns()` the frame's instant may be: the most a
    /// deadline can be moved later by the conversion.
    pub(crate) fn spread_ns(&self) -> i128 {
        self.spread_ns
    }

    /// The instant of `ns` on `perf_counter_ns()`'s clock, or `None` past either end of
    /// `Instant`.
    pub(crate) fn instant_of(&self, ns: i128) -> Option<Instant> {
        let offset = ns - self.ns;
        let magnitude = Duration::from_nanos(u64::try_from(offset.unsigned_abs()).ok()?);
        if offset >= 0 {
            self.instant.checked_add(magnitude)
        } else {
            self.instant.checked_sub(magnitude)
        }
    }

    /// `instant` as `perf_counter_ns()` would read it, in the frame.
    pub(crate) fn ns_of(&self, instant: Instant) -> i128 {
        if instant >= self.instant {
            self.ns + (instant - self.instant).as_nanos() as i128
        } else {
            self.ns - (self.instant - instant).as_nanos() as i128
        }
    }
}
