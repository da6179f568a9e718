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
//! The driver thread keeps the pending deadlines in a ring of 524 us buckets (1.07 s ahead;
//! later ones in a hierarchical wheel of 64-slot levels that hands them to the ring as it
//! nears them), sleeps natively until the earliest one, interrupted when
//! an earlier one arrives, and wakes the tasks due. A bucket leaves the ring only when its
//! turn comes, sorted by deadline, and the driver fires it in order with a cursor: so
//! registering, cancelling or moving a timer is `O(1)` (`O(log n)` only for one due within
//! about half a millisecond, which waits in a small heap),
//! and firing one touches its slot and little else. The task then checks the clock itself, so
//! a `Sleep` completes only once `Instant::now()` has reached its deadline. The driver frees
//! the slot of each timer it fires and publishes how far it has fired, so a task completing
//! its sleep takes no lock, and the lock the driver fires under is not contended by every
//! completing task. A pending timer costs 56 to 112 bytes in the driver (its buffers grow
//! by doubling) besides the `Sleep` itself (32 bytes on Linux and Windows); dropping the
//! `Sleep` removes it.
//!
//! While timers fall due densely (32 or more at one wake-up of the driver), the driver does
//! not wake again before 250 us after that wake-up: it fires together what fell due
//! meanwhile, never early and at most that much later than otherwise (plus the wait's own
//! oversleep), because each of its waits costs it a fixed amount of CPU, as much as firing
//! tens of timers. Timers that come sparsely, and drivers with a spin
//! tail, fire at their fire time. The driver
//! also prefetches each batch's tasks before waking them, so that the cache misses of their
//! wakes overlap. What each part costs per timer is in `docs/driver-cost.md`.
//!
//! The free functions use [`Driver::global`]; [`Driver::new`] makes a private driver, e.g.
//! with a spin tail for wakes within a microsecond, at a CPU cost.
//!
//! # The spin tail
//!
//! A task's lateness has two parts: the driver's (its native wait oversleeps, as any
//! thread's does) and the executor's (the woken task runs on another thread, which must be
//! woken in turn, a futex wake and a context switch on Linux, and may be busy with other
//! tasks). A driver that spun to the exact
//! deadline before waking the task would only move the error from the first part to the
//! second. So with a [`SpinTail`] the spin is the task's own, end to end:
//!
//! 1. On its first poll a sleep gets a margin: a fixed one, or a learned one planned as
//!    the hybrid [`Strategy`](crate::Strategy) plans a thread's spin by its budget
//!    ([`MarginEstimator::plan`](crate::margin::MarginEstimator::plan): the tail of recent delays,
//!    capped by the CPU budget, all of it when no recent delay fits: such a sleep is polled
//!    past its deadline anyway, and spins for none of it), but without the thread's
//!    short-wait rule: a short sleep is not spun whole in `poll`, where it would hold up
//!    the executor's other tasks past the budget.
//! 2. The driver fires the timer that margin before the deadline, natively, as any other.
//! 3. Polled before the deadline but within the margin, the sleep spins on the monotonic
//!    clock, in `poll`, until the deadline, and completes: never early, and late by about
//!    one clock read. Polled after the deadline, it completes at once, late.
//! 4. The time from the fire time to that poll (the driver's oversleep, the cross-thread
//!    wake and the executor's queue: the end-to-end delay) is the sample a learned tail
//!    learns from, in the length class of the wait it planned.
//!
//! The spin runs on the executor's thread and holds up that executor's other tasks while
//! it lasts: at most the margin, which the budget caps at a fraction of the sleep (the
//! time from its first poll to its deadline). That is why the tail is off by default,
//! and why it suits a few precise timers, not thousands: under a backlog the learned delay
//! grows past the budget, and the sleeps are fired the budget early and polled past their
//! deadlines, spinning not at all ([`DriverStats::capped`], [`DriverStats::margin_overrun`]).
//! [`DriverStats`]
//! counts the spins, their time, the capped and margin-less plans, and the margins that
//! fell short.
mod driver;
mod fired;
mod interval;
mod pace;
mod sleep;
mod tail;
mod thread;
mod timers;

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
