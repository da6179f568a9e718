//! Who frees a timer's slot, and how a [`Sleep`](super::Sleep) knows without asking: the
//! fired-through protocol between the sleeps and the driver thread, in one place.
//!
//! # The invariant
//!
//! A timer's slot is freed by whoever ends it: the driver thread when it fires the timer,
//! the sleep when it cancels, moves or completes it first. So that a sleep can tell which
//! without asking (its task is polled once per timer, and at scale the lock and the slot's
//! cache line would cost the executor more than the rest of the poll), the driver's timers
//! keep a *fired-through* mark ([`Timers::fired_through`]):
//!
//! - every timer due at or before the mark has been fired, and none due after it has;
//! - the mark only grows;
//! - a timer is only ever registered due after it ([`Timers::insert`] refuses one that is
//!   not, and [`Timers::reschedule`] removes it instead), and timers due at the same
//!   nanosecond are fired together ([`Timers::expire`]), so the mark never falls between
//!   two of them.
//!
//! So a sleep whose fire time is at or before the mark knows its slot is gone (maybe
//! already another sleep's) and leaves it alone; one whose fire time is after it still owns
//! its slot, for as long as it holds the lock.
//!
//! The driver thread publishes the mark ([`FiredThrough::publish`]) under the lock after
//! each pass. A sleep reads it without the lock first, which is enough to see a fired timer
//! (the common case, taking no lock); a stale reading is only smaller, so a timer that looks
//! pending is checked again under the lock ([`Shared::find`]). Whatever the timer held (its
//! waker, whose drop is foreign code; storage let go) is dropped after the lock is released
//! ([`Shared::remove_unless_fired`]).
//!
//! [`Timers::fired_through`]: super::timers::Timers::fired_through
//! [`Timers::insert`]: super::timers::Timers::insert
//! [`Timers::reschedule`]: super::timers::Timers::reschedule
//! [`Timers::expire`]: super::timers::Timers::expire

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::MutexGuard;

use super::driver::{Locked, Shared};
use super::timers::Timers;

/// Slot ids from here up are never a timer's: a sleep marks its own states with them.
pub(crate) const FIRST_RESERVED_SLOT: u32 = u32::MAX - 1;

/// The timers' fired-through mark as the driver thread last published it.
#[derive(Debug, Default)]
pub(crate) struct FiredThrough(AtomicU64);

impl FiredThrough {
    /// Publishes the mark of `timers`; the driver thread calls it under the lock, after
    /// each pass that fired timers.
    pub(crate) fn publish(&self, timers: &Timers) {
        self.0.store(timers.fired_through(), Ordering::Release);
    }

    /// Whether a timer due at `fire_ns` has fired, by the mark last published: `true` is
    /// certain, `false` may be stale.
    fn covers(&self, fire_ns: u64) -> bool {
        fire_ns <= self.0.load(Ordering::Acquire)
    }
}

/// A timer as the sleep that registered it holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub(crate) slot: u32,
    /// When the driver fires it, in the driver's nanoseconds.
    pub(crate) fire_ns: u64,
}

/// What [`Shared::find`] found.
pub(crate) enum Found<'a, T> {
    /// The driver fired the timer: its slot is no longer the sleep's. When the lock was
    /// taken to find that out, the lock and what was made before it, for the caller to
    /// drop in that order.
    Fired(Option<(MutexGuard<'a, Locked>, T)>),
    /// The timer is pending, and the sleep owns its slot while it holds this lock; with
    /// what was made before the lock was taken.
    Pending(MutexGuard<'a, Locked>, T),
}

impl Shared {
    /// Whether the timer due at `fire_ns` has fired, without the lock: `true` is certain,
    /// `false` may be stale.
    pub(crate) fn has_fired(&self, fire_ns: u64) -> bool {
        self.core().fired_through.covers(fire_ns)
    }

    /// Finds whether `held` has fired: by the published mark, then, if it looks pending,
    /// under the lock. `before_lock` runs only when the lock is about to be taken, for what
    /// must not be made under it (a waker's clone is foreign code).
    pub(crate) fn find<T>(&self, held: Held, before_lock: impl FnOnce() -> T) -> Found<'_, T> {
        if self.has_fired(held.fire_ns) {
            return Found::Fired(None);
        }
        let prepared = before_lock();
        let locked = self.lock();
        if held.fire_ns <= locked.timers.fired_through() {
            return Found::Fired(Some((locked, prepared)));
        }
        Found::Pending(locked, prepared)
    }

    /// Takes `held` out of the driver unless it has fired, dropping what it held once the
    /// lock is released: the whole sequence for a sleep that gives its timer up.
    pub(crate) fn remove_unless_fired(&self, held: Held) -> Removal<'_> {
        match self.find(held, || ()) {
            Found::Fired(locked) => Removal::Fired(locked.map(|(locked, ())| locked)),
            Found::Pending(locked, ()) => {
                remove_then_unlock(locked, held.slot);
                Removal::Removed
            }
        }
    }
}

/// What [`Shared::remove_unless_fired`] did.
pub(crate) enum Removal<'a> {
    /// The timer was pending; it is removed and its slot free.
    Removed,
    /// The driver had fired it; holds the lock when it was taken to find that out.
    Fired(Option<MutexGuard<'a, Locked>>),
}

/// Removes the pending timer in `slot` and releases the lock before dropping what it held.
pub(crate) fn remove_then_unlock(mut locked: MutexGuard<'_, Locked>, slot: u32) {
    let removed = locked.timers.remove(slot);
    drop(locked);
    drop(removed);
}
