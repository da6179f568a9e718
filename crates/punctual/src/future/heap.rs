//! The driver's pending timers: an indexed 4-ary min-heap of fire times in whole nanoseconds
//! (a sleep's deadline, less its spin margin when the driver has a spin tail), with each
//! timer's heap position kept in a slab slot so that cancelling or moving a timer is
//! O(log n) and allocates nothing.
//!
//! # Who frees a slot
//!
//! Whoever ends a timer: the driver when it fires it, the [`Sleep`](super::Sleep) when it
//! cancels or completes it first. The heap keeps the *fired-through* mark that tells them
//! apart ([`Timers::fired_through`]); what it promises, and how a sleep reads it, is in
//! `fired.rs`.
//!
//! # What the driver thread touches
//!
//! Firing a timer allocates and frees nothing: a freed slot joins a free list threaded
//! through the slots themselves, and storage is given back not while timers fire but by
//! [`Timers::trim`], which the driver calls only before a wait of a millisecond or more (or
//! none). Measured at 100,000 timers on the 2-CPU virtual machine this was written on,
//! shrinking the heap in the middle of a burst stalled the driver for 100 to 500 us each
//! time it halved (a new buffer's page faults), and freeing the last of a burst's storage
//! under the lock delayed the burst's last timers by about 600 us.
//!
//! Why a heap and not a hierarchical wheel: deadlines here are exact nanoseconds, which a
//! wheel would have to keep sorted in its finest level anyway; a 4-ary heap of 16-byte
//! entries keeps the hot comparisons in a few cache lines (log4 of a million is 10 levels),
//! and expiring is a batch of pops done by one thread. `punctual bench --scale` measures it
//! beside tokio's wheel.

use std::task::Waker;

use super::fired::FIRST_RESERVED_SLOT;

const ARITY: usize = 4;
/// `Slot::pos` of a slot no timer holds.
const FREE: u32 = u32::MAX;
/// Storage is not shrunk below this many entries: small drivers keep their buffers.
const MIN_CAPACITY: usize = 64;
/// The end of the free list.
const NO_SLOT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// When the driver fires the timer.
    deadline_ns: u64,
    slot: u32,
}

#[derive(Debug)]
struct Slot {
    waker: Option<Waker>,
    /// Where the timer sits in the heap, or [`FREE`].
    pos: u32,
    /// For a free slot, the next free one, or [`NO_SLOT`]. (It fills what would be padding.)
    next_free: u32,
}

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
    slots: Vec<Slot>,
}

/// All pending timers of one driver.
#[derive(Debug)]
pub(crate) struct Timers {
    heap: Vec<Entry>,
    slots: Vec<Slot>,
    /// The first free slot, or [`NO_SLOT`]: a list threaded through `Slot::next_free`.
    free_head: u32,
    /// Every timer due at or before this has been fired; see `fired.rs`.
    fired_through_ns: u64,
    max_pending: usize,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers {
            heap: Vec::new(),
            slots: Vec::new(),
            free_head: NO_SLOT,
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
        let slot = Slot {
            waker: Some(waker),
            pos: FREE,
            next_free: NO_SLOT,
        };
        let id = match self.free_head {
            NO_SLOT => {
                let id = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|&id| id < FIRST_RESERVED_SLOT)
                    .expect("fewer than four billion timers pending at once");
                self.slots.push(slot);
                id
            }
            id => {
                self.free_head = std::mem::replace(&mut self.slots[id as usize], slot).next_free;
                id
            }
        };
        self.heap.push(Entry {
            deadline_ns,
            slot: id,
        });
        self.sift_up(self.heap.len() - 1);
        self.max_pending = self.max_pending.max(self.heap.len());
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
        let pos = self.slots[id as usize].pos as usize;
        debug_assert_ne!(pos, FREE as usize, "a free slot rescheduled");
        let earlier = deadline_ns < self.heap[pos].deadline_ns;
        self.heap[pos].deadline_ns = deadline_ns;
        if earlier {
            self.sift_up(pos);
        } else {
            self.sift_down(pos);
        }
        None
    }

    /// Stores `waker` unless the one held would wake the same task; returns the waker not
    /// kept, for the caller to drop once the lock is released.
    pub(crate) fn replace_waker(&mut self, id: u32, waker: Waker) -> Option<Waker> {
        let slot = &mut self.slots[id as usize];
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
        let pos = self.slots[id as usize].pos;
        debug_assert_ne!(pos, FREE, "a free slot removed");
        self.remove_at(pos as usize);
        let waker = self.free_slot(id);
        Removed {
            waker,
            _spare: self.trim(),
        }
    }

    /// Gives storage back: all of it once no timer is pending (nothing refers to any slot
    /// then), otherwise half the heap's while it is three quarters empty; amortised O(1).
    /// The slots stay, as pending timers keep their numbers. Returns the buffers let go, for
    /// the caller to drop once the lock is released: freeing a burst's storage (unmapping
    /// megabytes) took some 600 us here, too long to hold up registrations.
    #[must_use = "drop the spare storage once the lock is released"]
    pub(crate) fn trim(&mut self) -> Spare {
        let mut spare = Spare::default();
        if self.heap.is_empty() {
            if self.slots.capacity() > MIN_CAPACITY || self.heap.capacity() > MIN_CAPACITY {
                spare.slots = std::mem::replace(&mut self.slots, Vec::with_capacity(MIN_CAPACITY));
                spare.heap = std::mem::replace(&mut self.heap, Vec::with_capacity(MIN_CAPACITY));
            }
            self.slots.clear();
            self.free_head = NO_SLOT;
            return spare;
        }
        let (len, capacity) = (self.heap.len(), self.heap.capacity());
        if capacity > MIN_CAPACITY && len < capacity / 4 {
            let mut smaller = Vec::with_capacity((len * 2).max(MIN_CAPACITY));
            smaller.extend_from_slice(&self.heap);
            spare.heap = std::mem::replace(&mut self.heap, smaller);
        }
        spare
    }

    fn free_slot(&mut self, id: u32) -> Option<Waker> {
        let slot = &mut self.slots[id as usize];
        slot.pos = FREE;
        slot.next_free = self.free_head;
        self.free_head = id;
        slot.waker.take()
    }

    /// The earliest fire time, if any timer is pending.
    pub(crate) fn earliest(&self) -> Option<u64> {
        self.heap.first().map(|e| e.deadline_ns)
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
            match self.heap.first() {
                Some(top)
                    if top.deadline_ns <= now_ns
                        && (expired.fired < limit || last_ns == Some(top.deadline_ns)) => {}
                _ => break,
            }
            let entry = self.pop_earliest();
            last_ns = Some(entry.deadline_ns);
            wakers.extend(self.free_slot(entry.slot));
            let late_ns = now_ns - entry.deadline_ns;
            expired.fired += 1;
            expired.late_total_ns = expired.late_total_ns.saturating_add(late_ns);
            expired.late_max_ns = expired.late_max_ns.max(late_ns);
        }
        // Every timer left is due after the mark; ties with the earliest left stay below it.
        let mark = match self.heap.first() {
            Some(top) => now_ns.min(top.deadline_ns - 1),
            None => now_ns,
        };
        self.fired_through_ns = self.fired_through_ns.max(mark);
        expired
    }

    /// Timers waiting in the heap.
    pub(crate) fn pending(&self) -> usize {
        self.heap.len()
    }

    /// The most timers ever pending at once.
    pub(crate) fn max_pending(&self) -> usize {
        self.max_pending
    }

    /// Bytes of heap memory this structure holds (by capacity, not by use).
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Entry>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    fn remove_at(&mut self, pos: usize) -> Entry {
        let last = self.heap.pop().expect("remove_at on an empty heap");
        if pos == self.heap.len() {
            return last;
        }
        let removed = std::mem::replace(&mut self.heap[pos], last);
        self.slots[last.slot as usize].pos = pos as u32;
        if pos > 0 && last.deadline_ns < self.heap[(pos - 1) / ARITY].deadline_ns {
            self.sift_up(pos);
        } else {
            self.sift_down(pos);
        }
        removed
    }

    /// Takes the earliest entry out, bottom-up: the hole it leaves walks down along the
    /// earliest children to a leaf, and the last entry, put there, sifts up. The last entry
    /// is among the latest, so it seldom rises far, and the walk down compares children
    /// only, not each level with it too: at 100,000 timers this took the driver thread
    /// from 819 to 598 instructions per timer fired (`examples/driver_cost.rs` under
    /// callgrind, `docs/driver-cost.md`).
    fn pop_earliest(&mut self) -> Entry {
        let last = self.heap.pop().expect("pop_earliest on an empty heap");
        let Some(&top) = self.heap.first() else {
            return last;
        };
        let len = self.heap.len();
        let mut hole = 0;
        loop {
            let first = hole * ARITY + 1;
            if first >= len {
                break;
            }
            let child = earliest_child(&self.heap, first);
            self.place(hole, self.heap[child]);
            hole = child;
        }
        self.heap[hole] = last;
        self.sift_up(hole);
        top
    }

    fn place(&mut self, pos: usize, entry: Entry) {
        self.heap[pos] = entry;
        self.slots[entry.slot as usize].pos = pos as u32;
    }

    fn sift_up(&mut self, mut pos: usize) {
        let entry = self.heap[pos];
        while pos > 0 {
            let parent = (pos - 1) / ARITY;
            if self.heap[parent].deadline_ns <= entry.deadline_ns {
                break;
            }
            self.place(pos, self.heap[parent]);
            pos = parent;
        }
        self.place(pos, entry);
    }

    fn sift_down(&mut self, mut pos: usize) {
        let entry = self.heap[pos];
        let len = self.heap.len();
        loop {
            let first = pos * ARITY + 1;
            if first >= len {
                break;
            }
            let child = earliest_child(&self.heap, first);
            if self.heap[child].deadline_ns >= entry.deadline_ns {
                break;
            }
            self.place(pos, self.heap[child]);
            pos = child;
        }
        self.place(pos, entry);
    }
}

/// The position of the earliest of the children starting at `first` (at least one):
/// a full group of four in three comparisons, two of them independent.
fn earliest_child(heap: &[Entry], first: usize) -> usize {
    match heap.get(first..first + ARITY) {
        Some(&[a, b, c, d]) => {
            let left = if b.deadline_ns < a.deadline_ns { 1 } else { 0 };
            let right = if d.deadline_ns < c.deadline_ns { 3 } else { 2 };
            let earlier = |i: usize| [a, b, c, d][i].deadline_ns;
            first
                + if earlier(right) < earlier(left) {
                    right
                } else {
                    left
                }
        }
        _ => (first..heap.len())
            .min_by_key(|&c| heap[c].deadline_ns)
            .expect("at least one child"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    use punctual_test_support::xorshift;

    use super::*;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn waker() -> Waker {
        Waker::from(Arc::new(Count(AtomicUsize::new(0))))
    }

    fn check_positions(timers: &Timers) {
        for (pos, entry) in timers.heap.iter().enumerate() {
            assert_eq!(timers.slots[entry.slot as usize].pos as usize, pos);
            assert!(entry.deadline_ns > timers.fired_through_ns);
            if pos > 0 {
                assert!(timers.heap[(pos - 1) / ARITY].deadline_ns <= entry.deadline_ns);
            }
        }
    }

    #[test]
    fn expires_in_deadline_order_through_inserts_moves_and_removals() {
        let mut timers = Timers::default();
        let mut x = 0x9E37_79B9_7F4A_7C15;
        let mut held: Vec<(u32, u64)> = Vec::new();
        for round in 0..20_000 {
            match xorshift(&mut x) % 4 {
                0 | 1 => {
                    let deadline = 1 + xorshift(&mut x) % 1_000_000;
                    held.push((timers.insert(deadline, waker()).unwrap(), deadline));
                }
                2 if !held.is_empty() => {
                    let (id, _) = held.swap_remove(x as usize % held.len());
                    assert!(timers.remove(id).waker.is_some());
                }
                _ if !held.is_empty() => {
                    let at = x as usize % held.len();
                    let deadline = 1 + xorshift(&mut x) % 1_000_000;
                    assert!(timers.reschedule(held[at].0, deadline).is_none());
                    held[at].1 = deadline;
                }
                _ => {}
            }
            if round % 1000 == 0 {
                check_positions(&timers);
            }
        }
        assert_eq!(timers.pending(), held.len());
        let mut expected: Vec<u64> = held.iter().map(|&(_, d)| d).collect();
        expected.sort_unstable();
        let mut fired = Vec::new();
        let mut wakers = Vec::new();
        while let Some(next) = timers.earliest() {
            let ties = held.iter().filter(|&&(_, d)| d == next).count();
            assert_eq!(timers.expire(next, 1, &mut wakers).fired, ties);
            fired.extend(std::iter::repeat_n(next, ties));
            check_positions(&timers);
            assert!(timers.fired_through() < timers.earliest().unwrap_or(u64::MAX));
        }
        assert_eq!(fired, expected);
        assert_eq!(wakers.len(), expected.len());
        assert_eq!(timers.pending(), 0);
        drop(timers.trim());
        assert_eq!((timers.slots.len(), timers.free_head), (0, NO_SLOT));
    }

    #[test]
    fn the_fired_through_mark_tells_fired_timers_from_pending_ones() {
        let mut timers = Timers::default();
        let a = timers.insert(10, waker()).unwrap();
        let b = timers.insert(20, waker()).unwrap();
        let tie = timers.insert(20, waker()).unwrap();
        let mut wakers = Vec::new();
        let expired = timers.expire(15, usize::MAX, &mut wakers);
        assert_eq!((expired.fired, wakers.len()), (1, 1));
        assert_eq!((expired.late_total_ns, expired.late_max_ns), (5, 5));
        assert_eq!(timers.fired_through(), 15);
        // `a`'s slot is free and is handed out again.
        assert!(timers.insert(15, waker()).is_err(), "due by the mark");
        let c = timers.insert(30, waker()).unwrap();
        assert_eq!(c, a, "a fired timer's slot is reused");
        // Two equal deadlines fire together, past the limit: the mark covers both.
        assert_eq!(timers.expire(20, 1, &mut wakers).fired, 2);
        assert_eq!(timers.fired_through(), 20);
        assert_eq!(timers.expire(25, usize::MAX, &mut wakers).fired, 0);
        assert_eq!(timers.fired_through(), 25);
        // A reset to a time already fired through is a removal, its waker handed back.
        assert!(timers.reschedule(c, 22).is_some());
        assert_eq!(timers.pending(), 0);
        let _ = (b, tie);
    }

    #[test]
    fn a_batch_never_splits_timers_due_at_the_same_nanosecond() {
        let mut timers = Timers::default();
        let early = timers.insert(5, waker()).unwrap();
        let ties: Vec<u32> = (0..1000)
            .map(|_| timers.insert(7, waker()).unwrap())
            .collect();
        let late = timers.insert(8, waker()).unwrap();
        let mut wakers = Vec::new();
        let expired = timers.expire(100, 1, &mut wakers);
        assert_eq!((expired.fired, timers.fired_through()), (1, 6));
        let expired = timers.expire(100, 1, &mut wakers);
        assert_eq!((expired.fired, timers.fired_through()), (1000, 7));
        assert_eq!(timers.pending(), 1);
        // Every fired timer is at or below the mark: none is taken for pending.
        assert!(timers.slots[late as usize].pos != FREE);
        let _ = (early, ties);
    }

    #[test]
    fn storage_is_given_back_when_empty() {
        let mut timers = Timers::default();
        let ids: Vec<u32> = (1..=100_000)
            .map(|i| timers.insert(i, waker()).unwrap())
            .collect();
        let full = timers.allocated_bytes();
        assert!(full >= 100_000 * (16 + 24));
        for id in ids {
            drop(timers.remove(id));
        }
        assert!(timers.allocated_bytes() <= MIN_CAPACITY * (16 + 24));
    }

    #[test]
    fn firing_leaves_storage_alone_until_trimmed() {
        let mut timers = Timers::default();
        for i in 1..=10_000 {
            timers.insert(i, waker()).unwrap();
        }
        let full = timers.allocated_bytes();
        let mut wakers = Vec::new();
        assert_eq!(timers.expire(9_000, usize::MAX, &mut wakers).fired, 9_000);
        assert_eq!(timers.allocated_bytes(), full, "no realloc while firing");
        drop(timers.trim());
        assert!(timers.allocated_bytes() < full);
        assert_eq!(timers.pending(), 1_000);
        // Freed slots are handed out again before new ones, newest first.
        let reused = timers.insert(20_000, waker()).unwrap();
        assert!(reused < 10_000);
        assert_eq!(
            timers.expire(u64::MAX - 1, usize::MAX, &mut wakers).fired,
            1_001
        );
        assert_eq!(timers.pending(), 0);
        drop(timers.trim());
        assert!(timers.allocated_bytes() <= MIN_CAPACITY * (16 + 24));
    }
}
