//! [`Sleep`]: a future that completes at a deadline, never before it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::driver::{Locked, Shared};
use super::heap::SlotState;
use crate::margin::LengthClass;
use crate::wait::spin_until;
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
/// On a driver with a [`SpinTail`](super::SpinTail), a sleep polled within its margin of
/// the deadline spins there, in `poll`, until the deadline, and completes; its
/// [`Wake::spun`] says for how long.
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
    /// Where the tail files this sleep's end-to-end delay (in what would be padding).
    class: LengthClass,
}

/// What [`Sleep::arm`] found.
enum Armed {
    /// Registered, or already registered: the waker is stored.
    Waiting,
    /// Within the spin margin of the deadline: spin to it now. Holds no slot any more.
    InWindow,
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
            class: LengthClass::default(),
        }
    }

    /// A sleep that never completes.
    pub(crate) fn never(driver: &Arc<Shared>, now: Instant) -> Sleep {
        Sleep {
            driver: Arc::clone(driver),
            deadline: far_future(now),
            slot: NO_SLOT,
            never: true,
            class: LengthClass::default(),
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
        let mut locked = self.driver.lock();
        match (deadline_ns, locked.timers.state(self.slot)) {
            (Some(ns), SlotState::Pending) => {
                let (fire_ns, margin, class) = self.plan(&locked, ns, Instant::now());
                self.class = class;
                locked.timers.reschedule(self.slot, fire_ns, margin);
                let interrupt = self.driver.plan_earlier(&locked, fire_ns);
                drop(locked);
                if interrupt {
                    self.driver.interrupt();
                }
            }
            // Fired (its task was woken and will poll again) or never: let go of the slot.
            _ => {
                let removed = locked.timers.remove(self.slot);
                self.slot = NO_SLOT;
                drop(locked);
                drop(removed.waker);
            }
        }
    }

    /// Makes the sleep never complete (for an interval whose next tick never comes).
    pub(crate) fn reset_never(&mut self) {
        self.release();
        self.deadline = far_future(Instant::now());
        self.never = true;
    }

    /// Asks the tail for this sleep's margin with `now` the time, and counts the plan;
    /// returns the fire time in the driver's nanoseconds, the margin and the class.
    fn plan(
        &self,
        locked: &Locked,
        deadline_ns: u64,
        now: Instant,
    ) -> (u64, Duration, LengthClass) {
        if !locked.tail.is_on() {
            return (deadline_ns, Duration::ZERO, self.class);
        }
        let plan = locked
            .tail
            .plan(self.deadline.saturating_duration_since(now));
        self.driver.core().count_plan(plan.learned);
        let margin_ns = u64::try_from(plan.margin.as_nanos()).unwrap_or(u64::MAX);
        (
            deadline_ns.saturating_sub(margin_ns),
            plan.margin,
            plan.class,
        )
    }

    /// Registers with the driver, or updates the registered waker; or finds the sleep within
    /// its spin margin, and lets go of its slot.
    fn arm(&mut self, waker: &Waker, now: Instant) -> Armed {
        let Some(deadline_ns) = self.driver.nanos_of(self.deadline) else {
            return Armed::Waiting;
        };
        let left = self.deadline.saturating_duration_since(now);
        // Cloned and dropped outside the lock: a waker's clone and drop are foreign code.
        let waker = waker.clone();
        let mut locked = self.driver.lock();
        let (fire_ns, replaced) = if self.slot == NO_SLOT {
            let (fire_ns, margin, class) = self.plan(&locked, deadline_ns, now);
            self.class = class;
            if !margin.is_zero() && left <= margin {
                drop(locked);
                return Armed::InWindow;
            }
            self.slot = locked.timers.insert(fire_ns, margin, waker);
            (fire_ns, None)
        } else {
            let margin = locked.timers.margin(self.slot);
            if !margin.is_zero() && left <= margin {
                // Fired early for this spin (or polled for another reason this close to
                // its deadline): what the task took to get here is the end-to-end delay.
                let removed = locked.timers.remove(self.slot);
                self.slot = NO_SLOT;
                if removed.state == SlotState::Fired {
                    locked.tail.record(self.class, margin - left);
                }
                drop(locked);
                drop(removed.waker);
                return Armed::InWindow;
            }
            let margin_ns = u64::try_from(margin.as_nanos()).unwrap_or(u64::MAX);
            let fire_ns = deadline_ns.saturating_sub(margin_ns);
            if locked.timers.state(self.slot) == SlotState::Fired {
                // Fired by a clock that ran ahead of `Instant`: wait again.
                locked.timers.reschedule(self.slot, fire_ns, margin);
            }
            (fire_ns, locked.timers.replace_waker(self.slot, waker))
        };
        let interrupt = self.driver.plan_earlier(&locked, fire_ns);
        drop(locked);
        drop(replaced);
        if interrupt {
            self.driver.interrupt();
        }
        Armed::Waiting
    }

    /// Gives the slot back once the deadline has passed (`now`); a timer the driver fired
    /// tells the tail how long its task took to poll.
    fn complete(&mut self, now: Instant) {
        if self.slot == NO_SLOT {
            return;
        }
        let mut locked = self.driver.lock();
        let removed = locked.timers.remove(self.slot);
        self.slot = NO_SLOT;
        if removed.state == SlotState::Fired && locked.tail.is_on() {
            locked.tail.record(
                self.class,
                now.saturating_duration_since(self.deadline) + removed.margin,
            );
            if !removed.margin.is_zero() {
                self.driver.core().count_overrun();
            }
        }
        drop(locked);
        drop(removed.waker);
    }

    /// Gives the slot back, learning nothing.
    fn release(&mut self) {
        if self.slot == NO_SLOT {
            return;
        }
        let removed = self.driver.lock().timers.remove(self.slot);
        self.slot = NO_SLOT;
        drop(removed.waker);
    }

    /// Spins from `start` until the deadline.
    fn spin(&self, start: Instant) -> Wake {
        let woke = spin_until(self.deadline);
        let spun = woke.saturating_duration_since(start);
        self.driver.core().count_spin(spun);
        Wake::new(self.deadline, woke, spun)
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
            this.complete(now);
            return Poll::Ready(Wake::new(this.deadline, now, Duration::ZERO));
        }
        match this.arm(cx.waker(), now) {
            Armed::Waiting => Poll::Pending,
            Armed::InWindow => Poll::Ready(this.spin(now)),
        }
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
