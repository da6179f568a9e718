use std::fmt;

use crate::rt::RtError;

/// A value the library cannot work with, found before anything waited.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A [`Ticker`](crate::Ticker) or [`Interval`](crate::future::Interval) period of zero: every tick would be due at once, forever.
    ZeroPeriod,
    /// A hybrid tail target outside `(0, 1]`.
    InvalidTail(f64),
    /// A hybrid headroom that is negative or not finite.
    InvalidHeadroom(f64),
    /// A margin window of zero samples, or more than [`HybridConfig::MAX_WINDOW`](crate::HybridConfig::MAX_WINDOW).
    InvalidWindow(usize),
    /// A CPU budget outside `[0, 1]`.
    InvalidBudget(f64),
    /// The OS refused an async timer [`Driver`](crate::future::Driver) its thread or its
    /// wait objects; the text says which, and why.
    DriverUnavailable(String),
    /// A real-time setting of a driver the OS cannot apply, found before the driver
    /// started: [`RtError::InvalidPriority`] for a priority outside
    /// [`rt::priority_range`](crate::rt::priority_range), with that range.
    Realtime(RtError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroPeriod => f.write_str("a ticker period must be longer than zero"),
            Error::InvalidTail(q) => {
                write!(
                    f,
                    "the hybrid tail target must be in (0, 1], e.g. 0.99; got {q}"
                )
            }
            Error::InvalidHeadroom(h) => write!(
                f,
                "the hybrid headroom must be a finite number of spreads, zero or more; got {h}"
            ),
            Error::InvalidWindow(n) => write!(
                f,
                "the margin window must hold 1 to {} samples; got {n}",
                crate::HybridConfig::MAX_WINDOW
            ),
            Error::InvalidBudget(b) => {
                write!(
                    f,
                    "the spin budget must be a fraction in [0, 1], e.g. 0.25; got {b}"
                )
            }
            Error::DriverUnavailable(why) => {
                write!(f, "the timer driver could not start: {why}")
            }
            Error::Realtime(error) => write!(f, "the driver thread: {error}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Realtime(error) => Some(error),
            _ => None,
        }
    }
}
