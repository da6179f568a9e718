//! Durations as whole nanoseconds, the unit of every raw integer the library and its
//! programs (the CLI, the port) write.

use std::time::Duration;

/// `duration` in whole nanoseconds, saturating at `u64::MAX` (some 584 years) where
/// [`Duration::as_nanos`]'s `u128` does not fit: the one conversion the workspace uses, so
/// that a huge duration reads the same wherever it is counted.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// assert_eq!(punctual::saturating_nanos(Duration::from_micros(3)), 3_000);
/// assert_eq!(punctual::saturating_nanos(Duration::from_nanos(u64::MAX)), u64::MAX);
/// assert_eq!(punctual::saturating_nanos(Duration::MAX), u64::MAX);
/// ```
#[inline]
pub fn saturating_nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
