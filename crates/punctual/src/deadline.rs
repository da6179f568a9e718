use std::time::{Duration, Instant};

/// A point in time to give up at, measured on the monotonic clock.
///
/// The cure for loops that count iterations as time: the number of iterations that fit in a
/// budget depends on how long each sleep really took, which is the thing nobody knows
/// (a Windows `Sleep(1)` takes 15.6 ms). A `Deadline` is read off the clock.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::Deadline;
///
/// let deadline = Deadline::after(Duration::from_secs(3600));
/// assert!(!deadline.has_passed());
/// assert!(deadline.remaining() <= Duration::from_secs(3600));
/// assert!(Deadline::after(Duration::MAX).is_never());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Deadline {
    at: Option<Instant>,
}

impl Deadline {
    /// `duration` from now. A duration past the end of `Instant` (such as
    /// [`Duration::MAX`]) is a deadline that never passes.
    pub fn after(duration: Duration) -> Deadline {
        Deadline {
            at: Instant::now().checked_add(duration),
        }
    }

    /// At `instant`, which may be in the past.
    pub fn at(instant: Instant) -> Deadline {
        Deadline { at: Some(instant) }
    }

    /// A deadline that never passes.
    pub fn never() -> Deadline {
        Deadline { at: None }
    }

    /// The instant, or `None` for a deadline that never passes.
    pub fn instant(&self) -> Option<Instant> {
        self.at
    }

    /// Whether this deadline never passes.
    pub fn is_never(&self) -> bool {
        self.at.is_none()
    }

    /// The time left: zero once passed, [`Duration::MAX`] for a deadline that never passes.
    pub fn remaining(&self) -> Duration {
        self.at.map_or(Duration::MAX, |at| {
            at.saturating_duration_since(Instant::now())
        })
    }

    /// Whether the clock has reached the deadline.
    pub fn has_passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }
}

impl From<Instant> for Deadline {
    fn from(instant: Instant) -> Deadline {
        Deadline::at(instant)
    }
}
