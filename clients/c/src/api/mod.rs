//! The exported functions and the types `punctual.h` declares, one file per part of the
//! library.

mod info;
mod library;
mod poll;
mod probe;
mod rt;
mod sleep;
mod ticker;
mod way_back;

pub use info::*;
pub use library::*;
pub use poll::*;
pub use probe::*;
pub use rt::*;
pub use sleep::*;
pub use ticker::*;
pub use way_back::*;

use std::time::{Duration, Instant};

use crate::clock;
use crate::status::Failure;

/// A non-negative duration argument.
fn duration_arg(ns: i64, what: &str) -> Result<Duration, Failure> {
    u64::try_from(ns)
        .map(clock::nanos)
        .map_err(|_| Failure::invalid(format!("{what} is negative: {ns}")))
}

/// A deadline argument: nanoseconds of `punctual_now_ns()`'s clock, never negative.
fn deadline_arg(ns: i64, what: &str) -> Result<Instant, Failure> {
    if ns < 0 {
        return Err(Failure::invalid(format!(
            "{what} is negative ({ns}): deadlines are readings of punctual_now_ns(), which never are"
        )));
    }
    clock::to_instant(ns)
}

/// An instant as nanoseconds for a report; instants the library hands back are never past
/// `i64::MAX` nanoseconds (292 years of uptime), so saturating loses nothing real.
fn report_ns(instant: Instant) -> i64 {
    clock::to_ns(instant).unwrap_or(i64::MAX)
}

/// The registry key of a handle C passed in.
fn key<T>(handle: *mut T, what: &str) -> Result<usize, Failure> {
    if handle.is_null() {
        Err(Failure::null(what))
    } else {
        Ok(handle as usize)
    }
}
