//! [`Sleep`]: a future that completes at a deadline, never before it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::driver::{nanos, Locked, Shared};
use super::fired::{remove_then_unlock, Found, Held, Removal, FIRST_RESERVED_SLOT};
use super::tail::Planned;
use crate::wait::spin_until;
use crate::Wake;

/// `Sleep::slot` when the sleep holds no slot in the driver.
const NO_SLOT: u32 = u32::MAX;
/// `Sleep::slot` of a sleep whose deadline never comes: it never registers.
const NEVER: u32 = FIRST_RESERVED_SLOT;

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
///
/// A `Sleep` that is neither awaited nor polled does nothing, and the compiler says so:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// punctual::future::sleep(std::time::Duration::from_millis(1)); // never awaited
/// ```
#[must_use = "a Sleep does nothing unless it is awaited or polled"]
pub struct Sleep {
    driver: Arc<Shared>,
    deadline: Instant,
    /// The slot of the timer last registered, or [`NO_SLOT`], or [`NEVER`] for a deadline
    /// past what `Instant` or the driver can count. The driver frees the slot when it fires
    /// the timer; the sleep then still holds the id, knows it is stale by its fire time
    /// (see `fired.rs`) and never uses it.
    slot: u32,
    /// The margin and class the tail gave the timer last registered.
    planned: Planned,
}

/// What [`Sleep::arm`] found.
enum Armed {
    /// Registered, or already registered: the waker is stored.
    Waiting,
    /// Within the spin margin of the deadline (or due by the driver's clock already): spin
    /// to it now. Holds no slot any more.
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
            slot: match driver.nanos_of(deadline) {
                Some(_) => NO_SLOT,
                None => NEVER,
            },
            planned: Planned::default(),
        }
    }

    /// A sleep that never completes.
    pub(crate) fn never(driver: &Arc<Shared>, now: Instant) -> Sleep {
        Sleep {
            driver: Arc::clone(driver),
            deadline: far_future(now),
            slot: NEVER,
            planned: Planned::default(),
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
        self.slot != NEVER && Instant::now() >= self.deadline
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
        self.come_here();
        // The registration is judged by the fire time it was made with, so before the
        // deadline changes.
        let held = self.held();
        self.deadline = deadline;
        let deadline_ns = self.driver.nanos_of(deadline);
        self.slot = match deadline_ns {
            Some(_) => NO_SLOT,
            None => NEVER,
        };
        let Some(held) = held else {
            return;
        };
        // Fired: its task was woken and will poll again.
        let Found::Pending(mut locked, ()) = self.driver.find(held, || ()) else {
            return;
        };
        let slot = held.slot;
        let Some(deadline_ns) = deadline_ns else {
            remove_then_unlock(locked, slot);
            return;
        };
        let (new_fire_ns, planned) = self.plan(&locked, deadline_ns, Instant::now());
        self.planned = planned;
        match locked.timers.reschedule(slot, new_fire_ns) {
            // Due already by the driver's clock: the task is woken to see to it.
            Some(removed) => {
                drop(locked);
                removed.wake();
            }
            None => {
                self.slot = slot;
                let interrupt = self.driver.plan_earlier(&locked, new_fire_ns);
                drop(locked);
                if interrupt {
                    self.driver.interrupt();
                }
            }
        }
    }

    /// Makes the sleep never complete (for an interval whose next tick never comes).
    pub(crate) fn reset_never(&mut self) {
        self.release();
        self.deadline = far_future(Instant::now());
        self.slot = NEVER;
    }

    /// In a child forked after this sleep's driver started, moves the sleep to the child's
    /// driver: the parent's has no thread here. The registration the parent's driver holds
    /// is left to it (the child never fires it), and the sleep registers anew when polled.
    fn come_here(&mut self) {
        if self.driver.is_here() {
            return;
        }
        self.driver = Arc::clone(self.driver.here());
        if self.slot != NEVER {
            self.slot = NO_SLOT;
        }
        self.planned = Planned::default();
    }

    /// The timer last registered, fired or not.
    fn held(&self) -> Option<Held> {
        if self.slot >= FIRST_RESERVED_SLOT {
            return None;
        }
        let deadline_ns = self.driver.nanos_of(self.deadline)?;
        Some(Held {
            slot: self.slot,
            fire_ns: deadline_ns.saturating_sub(nanos(self.planned.margin())),
        })
    }

    /// Asks the tail for this sleep's margin with `now` the time, and counts the plan;
    /// returns the fire time in the driver's nanoseconds and what was planned.
    fn plan(&self, locked: &Locked, deadline_ns: u64, now: Instant) -> (u64, Planned) {
        if !locked.tail.is_on() {
            return (deadline_ns, Planned::default());
        }
        let plan = locked
            .tail
            .plan(self.deadline.saturating_duration_since(now));
        self.driver.core().count_plan(plan.learned);
        let margin_ns = nanos(plan.planned.margin());
        (deadline_ns.saturating_sub(margin_ns), plan.planned)
    }

    /// Registers with the driver, or updates the registered waker; or finds the sleep within
    /// its spin margin, and lets go of its timer.
    fn arm(&mut self, waker: &Waker, now: Instant) -> Armed {
        let left = self.deadline.saturating_duration_since(now);
        if let Some(held) = self.held() {
            // Cloned and dropped outside the lock: a waker's clone and drop are foreign code.
            let (mut locked, waker) = match self.driver.find(held, || waker.clone()) {
                Found::Fired(locked) => {
                    self.slot = NO_SLOT;
                    let delay = self.planned.margin().saturating_sub(left);
                    let (mut locked, waker) = locked.unzip();
                    self.learn(locked.as_deref_mut(), delay);
                    drop(locked);
                    drop(waker);
                    return Armed::InWindow;
                }
                Found::Pending(locked, waker) => (locked, waker),
            };
            let margin = self.planned.margin();
            if !margin.is_zero() && left <= margin {
                // Polled for another reason this close to the deadline: spin from here.
                self.slot = NO_SLOT;
                remove_then_unlock(locked, held.slot);
                return Armed::InWindow;
            }
            let replaced = locked.timers.replace_waker(held.slot, waker);
            drop(locked);
            drop(replaced);
            return Armed::Waiting;
        }
        let Some(deadline_ns) = self.driver.nanos_of(self.deadline) else {
            return Armed::Waiting;
        };
        let waker = waker.clone();
        let mut locked = self.driver.lock();
        let (fire_ns, planned) = self.plan(&locked, deadline_ns, now);
        self.planned = planned;
        if !planned.margin().is_zero() && left <= planned.margin() {
            drop(locked);
            return Armed::InWindow;
        }
        match locked.timers.insert(fire_ns, waker) {
            Ok(slot) => {
                self.slot = slot;
                let interrupt = self.driver.plan_earlier(&locked, fire_ns);
                drop(locked);
                if interrupt {
                    self.driver.interrupt();
                }
                Armed::Waiting
            }
            // Due already by the driver's clock, which read it after `now`.
            Err(waker) => {
                drop(locked);
                drop(waker);
                Armed::InWindow
            }
        }
    }

    /// After a fired timer's task polled `delay` after its fire time: counts a margin that
    /// fell short (the task polled at or after the deadline), and teaches a learned tail (under the lock, taken here unless given).
    fn learn(&self, locked: Option<&mut Locked>, delay: Duration) {
        let margin = self.planned.margin();
        // Polled at the deadline itself counts too: nothing was left to spin. (Windows
        // reads the clock in 100 ns ticks, so a poll can read the deadline exactly.)
        if !margin.is_zero() && delay >= margin {
            self.driver.core().count_overrun();
        }
        if !self.driver.learns() {
            return;
        }
        match locked {
            Some(locked) => locked.tail.record(self.planned.class(), delay),
            None => self.driver.lock().tail.record(self.planned.class(), delay),
        }
    }

    /// Gives the timer back once the deadline has passed (`now`); a timer the driver fired
    /// tells the tail how long its task took to poll.
    fn complete(&mut self, now: Instant) {
        let Some(held) = self.held() else {
            return;
        };
        self.slot = NO_SLOT;
        let delay = now.saturating_duration_since(self.deadline) + self.planned.margin();
        // The common case takes no lock: the driver fired the timer and freed its slot.
        if let Removal::Fired(mut locked) = self.driver.remove_unless_fired(held) {
            self.learn(locked.as_deref_mut(), delay);
        }
    }

    /// Takes the timer out unless it has fired, learning nothing.
    fn release(&mut self) {
        let Some(held) = self.held() else {
            return;
        };
        self.slot = NO_SLOT;
        // A parent's registration, in a forked child: the parent's driver keeps it.
        if !self.driver.is_here() {
            return;
        }
        let _ = self.driver.remove_unless_fired(held);
    }

    /// Spins from `start` until the deadline.
    fn spin(&self, start: Instant) -> Wake {
        let woke = spin_until(self.deadline);
        let spun = woke.saturating_duration_since(start);
        if !self.planned.margin().is_zero() {
            self.driver.core().count_spin(spun);
        }
        Wake::new(self.deadline, woke, start)
    }
}

impl Future for Sleep {
    type Output = Wake;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Wake> {
        let this = self.get_mut();
        this.come_here();
        if this.slot == NEVER {
            return Poll::Pending;
        }
        let now = Instant::now();
        if now >= this.deadline {
            this.complete(now);
            return Poll::Ready(Wake::new(this.deadline, now, now));
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
            .field(
                "pending",
                &self
                    .held()
                    .is_some_and(|held| !self.driver.has_fired(held.fire_ns)),
            )
            .field("never", &(self.slot == NEVER))
            .finish()
    }
}
