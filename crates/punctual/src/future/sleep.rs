//! [`Sleep`]: a future that completes at a deadline, never before it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::driver::Shared;
use super::heap::SlotState;
use crate::Wake;

/// `Sleep::slot` when the sleep holds no slot in the driver.
const NO_SLOT: u32 = u32::MAX;

/// The deadline reported by a sleep that never completes: a century away, or as far as
/// `Instant` reaches.
fn far_future(now: Instant) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);
    now.checked_add(CENTURY)
        .or_else(|| now.checked_add(Duration::from_secs(24 * 60 * 60)))
        .unwrap_or(now)
}

/// A future that completes once `Instant::now()` has reached its deadline, with a [`Wake`]
/// that reports how late that was.
///
/// Made by [`sleep`](super::sleep), [`sleep_until`](super::sleep_until) or a [`Driver`]'s
/// methods. It registers with its driver on its first poll (a deadline already past
/// completes at once, registering nothing), and every completion is checked against the
/// clock when it is polled, so it is never early whatever the driver or the OS timer did.
///
/// Dropping a pending `Sleep` removes its timer from the driver: its memory is reused and
/// its task is not woken. `Sleep` is [`Unpin`]: it can be awaited by `&mut` and reset in
/// place.
///
/// [`Driver`]: super::Driver
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
///
/// let deadline = Instant::now() + Duration::from_micros(250);
/// let wake = futures::executor::block_on(punctual::future::sleep_until(deadline));
/// assert!(Instant::now() >= deadline);
/// assert_eq!(wake.deadline(), deadline);
/// println!("woke {:?} late", wake.lateness());
/// ```
pub struct Sleep {
    driver: Arc<Shared>,
    deadline: Instant,
    slot: u32,
    /// The deadline is past what `Instant` or the driver can count: it never comes, and the
    /// sleep never registers.
    never: bool,
}

impl Sleep {
    pub(crate) fn after(driver: &Arc<Shared>, duration: Duration) -> Sleep {
        let now = Instant::now();
        match now.checked_add(duration) {
            Some(deadline) => Sleep::until(driver, deadline),
            None => Sleep::never(driver, now),
        }
    }

    pub(crate) fn until(driver: &Arc<Shared>, deadline: Instant) -> Sleep {
        Sleep {
            driver: Arc::clone(driver),
            deadline,
            slot: NO_SLOT,
            never: driver.nanos_of(deadline).is_none(),
        }
    }

    /// A sleep that never completes.
    pub(crate) fn never(driver: &Arc<Shared>, now: Instant) -> Sleep {
        Sleep {
            driver: Arc::clone(driver),
            deadline: far_future(now),
            slot: NO_SLOT,
            never: true,
        }
    }

    /// The instant this sleep completes at.
    ///
    /// A sleep whose deadline cannot be represented (such as `sleep(Duration::MAX)`)
    /// reports one a century from its creation, and never completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the clock has reached the deadline (the sleep would complete if polled now).
    pub fn is_elapsed(&self) -> bool {
        !self.never && Instant::now() >= self.deadline
    }

    /// Moves the deadline, earlier or later, pending or not.
    ///
    /// A pending timer moves in place in the driver (no allocation) and keeps its waker, so
    /// a task already waiting on this sleep is woken at the new deadline; a sleep that
    /// already completed can be awaited again. A deadline past what the driver can count
    /// (some 584 years) makes the sleep never complete.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    ///
    /// let mut sleep = punctual::future::sleep(Duration::from_secs(3600));
    /// let sooner = Instant::now() + Duration::from_micros(100);
    /// sleep.reset(sooner);
    /// let wake = futures::executor::block_on(&mut sleep);
    /// assert_eq!(wake.deadline(), sooner);
    /// ```
    pub fn reset(&mut self, deadline: Instant) {
        self.deadline = deadline;
        let deadline_ns = self.driver.nanos_of(deadline);
        self.never = deadline_ns.is_none();
        if self.slot == NO_SLOT {
            return;
        }
        let mut timers = self.driver.lock();
        match (deadline_ns, timers.state(self.slot)) {
            (Some(ns), SlotState::Pending) => {
                timers.reschedule(self.slot, ns);
                let interrupt = self.driver.plan_earlier(&timers, ns);
                drop(timers);
                if interrupt {
                    self.driver.interrupt();
                }
            }
            // Fired (its task was woken and will poll again) or never: let go of the slot.
            _ => {
                let (_, waker) = timers.remove(self.slot);
                self.slot = NO_SLOT;
                drop(timers);
                drop(waker);
            }
        }
    }

    /// Makes the sleep never complete (for an interval whose next tick never comes).
    pub(crate) fn reset_never(&mut self) {
        self.release();
        self.deadline = far_future(Instant::now());
        self.never = true;
    }

    /// Registers with the driver, or updates the registered waker.
    fn arm(&mut self, waker: &Waker) {
        let Some(deadline_ns) = self.driver.nanos_of(self.deadline) else {
            return;
        };
        // Cloned and dropped outside the lock: a waker's clone and drop are foreign code.
        let waker = waker.clone();
        let mut timers = self.driver.lock();
        let replaced = if self.slot == NO_SLOT {
            self.slot = timers.insert(deadline_ns, waker);
            None
        } else {
            if let SlotState::Fired { .. } = timers.state(self.slot) {
                // Fired by a clock that ran ahead of `Instant`: wait again.
                timers.reschedule(self.slot, deadline_ns);
            }
            timers.replace_waker(self.slot, waker)
        };
        let interrupt = self.driver.plan_earlier(&timers, deadline_ns);
        drop(timers);
        drop(replaced);
        if interrupt {
            self.driver.interrupt();
        }
    }

    /// Gives the slot back; returns how long the driver spun before firing it.
    fn release(&mut self) -> Duration {
        if self.slot == NO_SLOT {
            return Duration::ZERO;
        }
        let (state, waker) = self.driver.lock().remove(self.slot);
        self.slot = NO_SLOT;
        drop(waker);
        match state {
            SlotState::Fired { spun } => spun,
            SlotState::Pending => Duration::ZERO,
        }
    }
}

impl Future for Sleep {
    type Output = Wake;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Wake> {
        let this = self.get_mut();
        if this.never {
            return Poll::Pending;
        }
        let now = Instant::now();
        if now >= this.deadline {
            let spun = this.release();
            return Poll::Ready(Wake::new(this.deadline, now, spun));
        }
        this.arm(cx.waker());
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.release();
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("registered", &(self.slot != NO_SLOT))
            .field("never", &self.never)
            .finish()
    }
}
