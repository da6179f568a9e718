use std::time::{Duration, Instant};

/// What one wait did: its deadline, the clock reading that ended it, and how long it spun.
///
/// The reading in [`Wake::woke`] is the one that proved the deadline had passed, so
/// [`Wake::lateness`] costs no second clock read and is never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wake {
    deadline: Instant,
    woke: Instant,
    /// When the spin began (`woke` when there was none): the spin's length is computed when
    /// asked for, not on the way back to the caller.
    spin_started: Instant,
}

impl Wake {
    pub(crate) fn new(deadline: Instant, woke: Instant, spin_started: Instant) -> Wake {
        debug_assert!(woke >= deadline, "a wake before its deadline");
        Wake {
            deadline,
            woke,
            spin_started,
        }
    }

    /// The instant the wait was for.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The clock reading that ended the wait; never before [`Wake::deadline`].
    pub fn woke(&self) -> Instant {
        self.woke
    }

    /// How late the wait ended: `woke - deadline`.
    ///
    /// A deadline already in the past when the wait began counts in full.
    pub fn lateness(&self) -> Duration {
        self.woke.saturating_duration_since(self.deadline)
    }

    /// How long the wait busy-spun (zero for a purely native wait).
    pub fn spun(&self) -> Duration {
        self.woke.saturating_duration_since(self.spin_started)
    }
}
