//! Async timers for any executor: [`sleep`], [`sleep_until`] and [`interval`], with
//! nanosecond deadlines that are never early, served by a [`Driver`] thread.
//!
//! The futures need no runtime: they work under tokio (current-thread or multi-thread),
//! smol / async-io, `futures::executor`, or a hand-written executor, and each completion
//! reports its lateness as a [`Wake`](crate::Wake). tokio's own timer counts whole
//! milliseconds; these wake as soon as the OS's high-resolution timer allows, or, with a
//! driver's [`SpinTail`], within a spin of the deadline.
//!
//! ```
//! use std::time::Duration;
//!
//! futures::executor::block_on(async {
//!     let wake = punctual::future::sleep(Duration::from_micros(200)).await;
//!     assert!(wake.woke() >= wake.deadline());
//! });
//! ```
//!
//! # How it works
//!
//! A [`Sleep`] registers its deadline and its task's waker with a driver on its first poll.
//! The driver thread keeps every pending deadline in an indexed heap (so cancelling or
//! moving one is `O(log n)`), sleeps natively until the earliest one, interrupted when an
//! earlier one arrives, and wakes the tasks due. The task then checks the clock itself, so
//! a `Sleep` completes only once `Instant::now()` has reached its deadline. A pending timer
//! costs about 40 bytes in the driver besides the `Sleep` itself; dropping the `Sleep`
//! removes it.
//!
//! The free functions use [`Driver::global`]; [`Driver::new`] makes a private driver, e.g.
//! with a spin tail for sub-microsecond wakes at a CPU cost.

mod driver;
mod heap;
mod interval;
mod sleep;
mod thread;

use std::time::{Duration, Instant};

pub use driver::{Driver, DriverConfig, DriverStats, SpinTail};
pub use interval::Interval;
pub use sleep::Sleep;

use crate::Error;

/// A future that completes `duration` from now, on the [global driver](Driver::global).
///
/// A duration so long that `Instant::now() + duration` overflows (such as
/// [`Duration::MAX`]) makes a sleep that never completes, and costs the driver nothing.
///
/// # Panics
///
/// As [`Driver::global`], when the OS refuses the driver on first use.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
///
/// futures::executor::block_on(async {
///     let start = Instant::now();
///     punctual::future::sleep(Duration::from_micros(300)).await;
///     assert!(start.elapsed() >= Duration::from_micros(300));
/// });
/// ```
pub fn sleep(duration: Duration) -> Sleep {
    Driver::global().sleep(duration)
}

/// A future that completes at `deadline`, on the [global driver](Driver::global); a
/// deadline already past completes on the first poll.
///
/// # Panics
///
/// As [`Driver::global`], when the OS refuses the driver on first use.
pub fn sleep_until(deadline: Instant) -> Sleep {
    Driver::global().sleep_until(deadline)
}

/// An [`Interval`] whose tick 0 is one `period` from now, on the global driver.
///
/// # Errors
///
/// [`Error::ZeroPeriod`] for a zero period.
///
/// # Panics
///
/// As [`Driver::global`], when the OS refuses the driver on first use.
pub fn interval(period: Duration) -> Result<Interval, Error> {
    Driver::global().interval(period)
}

/// An [`Interval`] whose tick 0 is due at `first` (which may be past), on the global driver.
///
/// # Errors
///
/// [`Error::ZeroPeriod`] for a zero period.
///
/// # Panics
///
/// As [`Driver::global`], when the OS refuses the driver on first use.
pub fn interval_at(first: Instant, period: Duration) -> Result<Interval, Error> {
    Driver::global().interval_at(first, period)
}
