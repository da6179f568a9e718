//! The driver's pending timers: fire times in whole nanoseconds (a sleep's deadline, less
//! its spin margin when the driver has a spin tail), each timer's place kept in a slab slot
//! so that cancelling or moving it allocates nothing.
//!
//! # The parts
//!
//! - [`slab`]: one slot per timer, reused through a free list; a slot's [`Place`] says
//!   where its timer waits.
//! - [`ring`]: the timers of the next 1.07 s, in buckets of 524 us, each a few intrusive
//!   lists: O(1) to register, move or cancel.
//! - [`run`]: the bucket being fired, sorted, fired by a cursor.
//! - [`wheel`]: the timers beyond the ring, in levels of 64 slots; as the ring's span moves
//!   on, the slots it reaches are placed again, into the ring or a lower level. O(1) to
//!   register or cancel.
//! - [`heap`]: an indexed 4-ary heap for the timers of a bucket that already moved out
//!   (registered or reset late, due within about half a millisecond).
//!
//! So the parts hold disjoint spans of buckets, in order: the run and the heap the buckets
//! up to the ring's start (`Ring::drained`), the ring the next 2,048, the wheel the rest.
//! The earliest timer is the run's or the heap's when they hold any, else the ring's first
//! bucket's, else the wheel's earliest slot's.
//!
//! A bucket moves out of the ring only when its turn comes: in [`Timers::expire`], once
//! its start is due (or within one bucket of it, for the driver's next look) and nothing in
//! the run or the heap is later than its start. It goes into the run when the run is empty
//! and has room (kept for the ring's largest bucket by [`Timers::insert`], so that moving a
//! bucket never allocates), otherwise into the heap. Bucket moves are left to the driver's
//! turn on purpose: a burst of tasks registers its timers in random order, and a bucket
//! moved out at the first registration would send every later timer due before it to the
//! heap. The heap keeps room for every pending timer, so that moving one into it (a reset)
//! never allocates.
//!
//! # Who frees a slot
//!
//! Whoever ends a timer: the driver when it fires it, the [`Sleep`](super::Sleep) when it
//! cancels or completes it first. The store keeps the *fired-through* mark that tells them
//! apart ([`Timers::fired_through`]); what it promises, and how a sleep reads it, is in
//! `fired.rs`.
//!
//! # What the driver thread touches
//!
//! Firing a timer allocates and frees nothing: a freed slot joins the free list, and
//! storage is given back not while timers fire but by [`Timers::trim`], which the driver
//! calls only before a wait of a millisecond or more (or none): shrinking a buffer in the
//! middle of a burst stalls the driver on the new buffer's page faults, and freeing a
//! burst's storage (unmapping megabytes) under the lock holds up the registrations waiting
//! for it.

mod heap;
#[cfg(test)]
mod model;
mod ring;
mod run;
mod slab;
#[cfg(test)]
mod tests;
mod wheel;

use std::task::Waker;

use self::heap::{Entry, Heap};
use self::ring::{Ring, BUCKET_SHIFT, RING};
use self::run::Run;
use self::slab::{Place, Slab, Slot, NIL};
use self::wheel::Wheel;
use crate::sys;

/// Storage is not shrunk below this many entries: small drivers keep their buffers.
const MIN_CAPACITY: usize = 64;

/// What one [`Timers::expire`] did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Expired {
    pub(crate) fired: usize,
    /// How late the driver fired them (its own lateness, before any executor's), summed.
    pub(crate) late_total_ns: u64,
    pub(crate) late_max_ns: u64,
}

/// A timer [`Timers::remove`] took out: its waker, and any storage let go with it.
#[derive(Debug)]
pub(crate) struct Removed {
    pub(crate) waker: Option<Waker>,
    _spare: Spare,
}

impl Removed {
    /// Wakes the timer's task (a reset to a time already due).
    pub(crate) fn wake(self) {
        if let Some(waker) = self.waker {
            waker.wake();
        }
    }
}

/// Storage [`Timers::trim`] let go, freed when this is dropped.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    heap: Vec<Entry>,
    run: Vec<Entry>,
    slots: Vec<Slot>,
}

/// All pending timers of one driver.
#[derive(Debug)]
pub(crate) struct Timers {
    /// The timers of buckets already moved out of the ring. Its capacity is kept at least
    /// the number of pending timers, so that moving any into it never allocates.
    heap: Heap,
    run: Run,
    /// The run's room is kept for this many timers: the most any ring bucket has held.
    run_room: usize,
    ring: Ring,
    wheel: Wheel,
    slab: Slab,
    /// Every timer due at or before this has been fired; see `fired.rs`.
    fired_through_ns: u64,
    max_pending: usize,
}

impl Default for Timers {
    fn default() -> Timers {
        let ring = Ring::default();
        Timers {
            heap: Heap::default(),
            run: Run::default(),
            run_room: 0,
            wheel: Wheel::new(ring.drained + RING as u64),
            ring,
            slab: Slab::default(),
            fired_through_ns: 0,
            max_pending: 0,
        }
    }
}

impl Timers {
    /// Adds a timer fired at `deadline_ns`; returns its slot. Refuses one due at or before
    /// [`Timers::fired_through`], which is due already by the driver's clock, and hands its
    /// waker back.
    ///
    /// # Panics
    ///
    /// With more than about four billion timers pending at once.
    pub(crate) fn insert(&mut self, deadline_ns: u64, waker: Waker) -> Result<u32, Waker> {
        if deadline_ns <= self.fired_through_ns {
            return Err(waker);
        }
        let id = self.slab.take(deadline_ns, waker);
        // Room in the heap for every pending timer, this one included.
        self.heap.reserve_total(self.pending() + 1);
        self.place_new(id);
        // Room in the run for the largest bucket, should it move in whole.
        self.run.reserve_for(self.run_room);
        self.max_pending = self.max_pending.max(self.pending());
        Ok(id)
    }

    /// The mark every timer due at or before has been fired by; see `fired.rs`.
    pub(crate) fn fired_through(&self) -> u64 {
        self.fired_through_ns
    }

    /// Moves a pending timer to fire at `deadline_ns`, in place. When that is not after
    /// [`Timers::fired_through`], the timer is due already: it is removed instead, for the
    /// caller to [`Removed::wake`] once the lock is released.
    pub(crate) fn reschedule(&mut self, id: u32, deadline_ns: u64) -> Option<Removed> {
        if deadline_ns <= self.fired_through_ns {
            return Some(self.remove(id));
        }
        match self.slab.get(id).place {
            Place::Free => debug_assert!(false, "a free slot rescheduled"),
            // A heap timer moved to a bucket the heap does not hold leaves it.
            Place::Heap(pos) if deadline_ns >> BUCKET_SHIFT <= self.ring.drained => {
                self.slab.get_mut(id).deadline_ns = deadline_ns;
                self.heap.update(&mut self.slab, pos as usize, deadline_ns);
            }
            Place::Ring | Place::Run | Place::Wheel | Place::Heap(_) => {
                self.take_out(id);
                self.slab.get_mut(id).deadline_ns = deadline_ns;
                self.place_new(id);
            }
        }
        None
    }

    /// Stores `waker` unless the one held would wake the same task; returns the waker not
    /// kept, for the caller to drop once the lock is released.
    pub(crate) fn replace_waker(&mut self, id: u32, waker: Waker) -> Option<Waker> {
        let slot = self.slab.get_mut(id);
        match &slot.waker {
            Some(held) if held.will_wake(&waker) => Some(waker),
            _ => slot.waker.replace(waker),
        }
    }

    /// Takes a pending timer out and frees its slot. Run by the task that cancels, not by
    /// the driver thread, so it gives storage back as it goes; what it returns (the waker
    /// and any storage let go) is for the caller to drop once the lock is released.
    #[must_use = "drop it once the lock is released"]
    pub(crate) fn remove(&mut self, id: u32) -> Removed {
        debug_assert_ne!(self.slab.get(id).place, Place::Free, "a free slot removed");
        self.take_out(id);
        let waker = self.slab.free(id);
        Removed {
            waker,
            _spare: self.trim(),
        }
    }

    /// Gives storage back: all of it once no timer is pending (nothing refers to any slot
    /// then), otherwise half the heap's room while pending timers fill less than a quarter
    /// of it (it keeps room for all of them); amortised O(1).
    /// The slots stay, as pending timers keep their numbers. Returns the buffers let go, for
    /// the caller to drop once the lock is released: freeing a burst's storage (unmapping
    /// megabytes) is too slow to hold up registrations with.
    #[must_use = "drop the spare storage once the lock is released"]
    pub(crate) fn trim(&mut self) -> Spare {
        let mut spare = Spare::default();
        let pending = self.pending();
        if pending == 0 {
            if self.slab.capacity() > MIN_CAPACITY || self.heap.capacity() > MIN_CAPACITY {
                spare.slots = self.slab.replace_storage(MIN_CAPACITY);
                spare.heap =
                    std::mem::replace(&mut self.heap.entries, Vec::with_capacity(MIN_CAPACITY));
            }
            self.slab.clear();
            spare.run = self.run.clear(MIN_CAPACITY);
            self.run_room = 0;
            return spare;
        }
        let capacity = self.heap.capacity();
        if capacity > MIN_CAPACITY && pending < capacity / 4 {
            let mut smaller = Vec::with_capacity((pending * 2).max(MIN_CAPACITY));
            smaller.extend_from_slice(&self.heap.entries);
            spare.heap = std::mem::replace(&mut self.heap.entries, smaller);
        }
        spare
    }

    /// The earliest fire time, if any timer is pending.
    pub(crate) fn earliest(&mut self) -> Option<u64> {
        let settled = self.earliest_settled();
        if self.ring.len == 0 {
            return settled.or_else(|| self.wheel.first_min(&self.slab));
        }
        if settled.is_some_and(|next| next < self.ring.first_ns) {
            return settled;
        }
        let min = self.ring.first_min(&self.slab);
        match (settled, min) {
            (Some(next), Some(min)) => Some(next.min(min)),
            (next, min) => next.or(min),
        }
    }

    /// The earliest fire time in the heap and the run.
    fn earliest_settled(&self) -> Option<u64> {
        self.next_settled().map(|(deadline_ns, _)| deadline_ns)
    }

    /// The earliest fire time in the heap and the run, and whether it is the run's (the
    /// run's on a tie).
    fn next_settled(&self) -> Option<(u64, bool)> {
        match (self.heap.first(), self.run.next()) {
            (Some(top), Some(next)) if top.deadline_ns < next.deadline_ns => {
                Some((top.deadline_ns, false))
            }
            (_, Some(next)) => Some((next.deadline_ns, true)),
            (Some(top), None) => Some((top.deadline_ns, false)),
            (None, None) => None,
        }
    }

    /// Whether the ring's first bucket's turn has come by `by_ns`: it starts by then and
    /// no earlier than the earliest timer of the heap and the run.
    fn first_bucket_due(&self, by_ns: u64) -> bool {
        self.ring.len > 0
            && self.ring.first_ns <= by_ns
            && self
                .earliest_settled()
                .map_or(true, |next| self.ring.first_ns <= next)
    }

    /// Whether the wheel's earliest slot starts by `by_ns` while the ring is empty: then
    /// the ring's span jumps to it ([`Timers::bring_wheel_near`]).
    fn wheel_due(&self, by_ns: u64) -> bool {
        self.ring.len == 0
            && self
                .wheel
                .next_start()
                .is_some_and(|start| start <= by_ns >> BUCKET_SHIFT)
    }

    /// Moves the empty ring's span on to start at the wheel's earliest slot, bringing that
    /// slot's timers into it. (Only buckets before that slot, already due, are given up to
    /// the heap.)
    fn bring_wheel_near(&mut self) {
        if let Some(start) = self.wheel.next_start() {
            self.advance_ring(start - 1);
        }
    }

    /// Moves the ring's start on to bucket `drained` (no ring bucket up to it holds timers)
    /// and places again the timers of every wheel slot the ring's span now reaches.
    fn advance_ring(&mut self, drained: u64) {
        self.ring.drained = self.ring.drained.max(drained);
        let end = self.ring.drained + RING as u64;
        if end <= self.wheel.reference() {
            return;
        }
        while let Some(head) = self.wheel.take_due(end) {
            let mut id = head;
            while id != NIL {
                let next = self.slab.get(id).next;
                if next != NIL {
                    sys::prefetch_ref(self.slab.get(next));
                }
                self.slab.get_mut(id).place = Place::Free;
                self.place(id);
                id = next;
            }
        }
        self.wheel.move_reference(end);
    }

    /// Fires the timers due at or before `now_ns`, earliest first, up to `limit` of them
    /// and then any more due at the same nanosecond as the last: frees their slots, moves
    /// their wakers to `wakers` and advances [`Timers::fired_through`].
    ///
    /// Timers due at the same nanosecond are never split between two calls: the mark
    /// could not tell the fired ones from the others, and a sleep whose timer had fired
    /// would take a slot freed (or reused) under it for its own.
    pub(crate) fn expire(&mut self, now_ns: u64, limit: usize, wakers: &mut Vec<Waker>) -> Expired {
        let mut expired = Expired::default();
        let mut last_ns = None;
        loop {
            if self.first_bucket_due(now_ns) {
                self.move_first_bucket();
                continue;
            }
            if self.wheel_due(now_ns) {
                self.bring_wheel_near();
                continue;
            }
            let from_run = match self.next_settled() {
                Some((next, from_run))
                    if next <= now_ns && (expired.fired < limit || last_ns == Some(next)) =>
                {
                    from_run
                }
                _ => break,
            };
            let entry = if from_run {
                self.run.pop(&self.slab)
            } else {
                self.heap.pop_earliest(&mut self.slab)
            };
            last_ns = Some(entry.deadline_ns);
            wakers.extend(self.slab.free(entry.slot));
            let late_ns = now_ns - entry.deadline_ns;
            expired.fired += 1;
            expired.late_total_ns = expired.late_total_ns.saturating_add(late_ns);
            expired.late_max_ns = expired.late_max_ns.max(late_ns);
        }
        // Every timer left is due after the mark; ties with the earliest left stay below it.
        // (A bucket still in the ring starts after `now_ns`.)
        let mark = match self.earliest_settled() {
            Some(next) => now_ns.min(next - 1),
            None => now_ns,
        };
        self.fired_through_ns = self.fired_through_ns.max(mark);
        // The next bucket, when it starts within one, moves now: the driver's next look
        // then finds its earliest without walking its lists.
        let next_look_ns = now_ns.saturating_add(1 << BUCKET_SHIFT);
        if self.wheel_due(next_look_ns) {
            self.bring_wheel_near();
        }
        if self.first_bucket_due(next_look_ns) {
            self.move_first_bucket();
        }
        expired
    }

    /// Timers waiting, in the heap, the run, the ring or the wheel.
    pub(crate) fn pending(&self) -> usize {
        self.heap.len() + self.run.len + self.ring.len + self.wheel.len
    }

    /// The most timers ever pending at once.
    pub(crate) fn max_pending(&self) -> usize {
        self.max_pending
    }

    /// Bytes of heap memory this structure holds (by capacity, not by use).
    pub(crate) fn allocated_bytes(&self) -> usize {
        (self.heap.capacity() + self.run.capacity()) * std::mem::size_of::<Entry>()
            + self.slab.capacity() * std::mem::size_of::<Slot>()
    }

    /// Takes the pending timer of slot `id` out of wherever it waits; its slot stays taken.
    fn take_out(&mut self, id: u32) {
        match self.slab.get(id).place {
            Place::Free => {}
            Place::Ring => self.ring.unlink(&mut self.slab, id),
            Place::Wheel => self.wheel.unlink(&mut self.slab, id),
            Place::Run => self.run.take(&mut self.slab, id),
            Place::Heap(pos) => {
                self.heap.remove_at(&mut self.slab, pos as usize);
                self.slab.get_mut(id).place = Place::Free;
            }
        }
    }

    /// Puts the timer of slot `id`, pending but placed nowhere, where its bucket is held,
    /// first moving the ring on past the buckets the fired-through mark has left behind.
    fn place_new(&mut self, id: u32) {
        // Every bucket at or before the fired-through mark's is past: none holds timers, so
        // the ring may start after the one before it. Otherwise a driver whose epoch is far
        // behind its deadlines would hold them all in the heap.
        let past = (self.fired_through_ns >> BUCKET_SHIFT).saturating_sub(1);
        if past > self.ring.drained {
            self.advance_ring(past);
        }
        self.place(id);
    }

    /// Puts the timer of slot `id`, pending but placed nowhere, into the ring when it holds
    /// the timer's bucket, into the wheel when it is later, else into the heap (whose room
    /// for it is kept).
    fn place(&mut self, id: u32) {
        let deadline_ns = self.slab.get(id).deadline_ns;
        if self.ring.covers(deadline_ns) {
            self.ring.link(&mut self.slab, id);
            self.run_room = self.run_room.max(self.ring.count_of(deadline_ns));
        } else if deadline_ns >> BUCKET_SHIFT > self.wheel.reference() {
            self.wheel.link(&mut self.slab, id);
        } else {
            self.heap.push(&mut self.slab, id);
        }
    }

    /// Moves the ring's first bucket out: into the run, sorted, when the run has no timer
    /// left and room for it (kept by [`Timers::insert`]); otherwise into the heap. The
    /// driver moves a bucket when its turn comes (`first_bucket_due`), so timers registered
    /// in any order wait in the ring until then.
    fn move_first_bucket(&mut self) {
        let mut bucket = self.ring.take_first();
        let into_run = self.run.can_take(bucket.count);
        if into_run {
            self.run.start();
        }
        let lanes = &mut bucket.lanes;
        for &id in lanes.iter().filter(|&&id| id != NIL) {
            sys::prefetch_ref(self.slab.get(id));
        }
        // Round the lanes, one slot of each a turn: each slot was prefetched a turn ago.
        let mut open = lanes.iter().filter(|&&id| id != NIL).count();
        while open > 0 {
            for lane in lanes.iter_mut() {
                let id = *lane;
                if id == NIL {
                    continue;
                }
                let slot = self.slab.get_mut(id);
                let (next, deadline_ns) = (slot.next, slot.deadline_ns);
                (slot.next, slot.prev, slot.place) = (NIL, NIL, Place::Free);
                match next {
                    NIL => open -= 1,
                    next => sys::prefetch_ref(self.slab.get(next)),
                }
                *lane = next;
                if into_run {
                    self.slab.get_mut(id).place = Place::Run;
                    self.run.push(Entry {
                        deadline_ns,
                        slot: id,
                    });
                } else {
                    self.heap.push(&mut self.slab, id);
                }
            }
        }
        if into_run {
            self.run.sort();
        }
        self.advance_ring(self.ring.drained);
    }
}
