//! The port's clock: signed nanoseconds since an origin taken when the program started.
//!
//! [`Instant`] has no number a client could see, so protocol 2 speaks of deadlines in
//! nanoseconds from this origin; a client learns the offset to its own clock with NOW.
//! [`Duration`] counts whole nanoseconds, so a reading converts exactly, and a wake that
//! fires once the reading has reached its deadline is never early.

use std::time::{Duration, Instant};

/// Nanoseconds since the origin, on [`Instant`]'s monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct PortClock {
    origin: Instant,
}

impl PortClock {
    /// A clock whose zero is now.
    pub fn start() -> PortClock {
        PortClock {
            origin: Instant::now(),
        }
    }

    /// The time now.
    pub fn now_ns(&self) -> i64 {
        self.ns(Instant::now())
    }

    /// `instant` in nanoseconds since the origin, saturating at `i64::MAX` (292 years);
    /// instants before the origin read as negative.
    pub fn ns(&self, instant: Instant) -> i64 {
        match instant.checked_duration_since(self.origin) {
            Some(after) => i64::try_from(after.as_nanos()).unwrap_or(i64::MAX),
            None => {
                let before = self.origin.duration_since(instant).as_nanos();
                -i64::try_from(before).unwrap_or(i64::MAX)
            }
        }
    }

    /// The instant `ns` after the origin, or `None` past what [`Instant`] can hold (a
    /// deadline that never comes). Negative values are the origin itself: already past.
    pub fn instant(&self, ns: i64) -> Option<Instant> {
        let after = Duration::from_nanos(u64::try_from(ns).unwrap_or(0));
        self.origin.checked_add(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_and_instants_agree() {
        let clock = PortClock::start();
        let now = Instant::now();
        let ns = clock.ns(now);
        assert!(ns >= 0);
        let back = clock.instant(ns).expect("representable");
        assert_eq!(back, now);
        assert_eq!(clock.instant(-5), clock.instant(0));
    }
}
