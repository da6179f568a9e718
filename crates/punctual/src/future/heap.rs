//! The driver's pending timers: an indexed 4-ary min-heap of fire times in whole nanoseconds
//! (a sleep's deadline, less its spin margin when the driver has a spin tail), with each
//! timer's heap position kept in a slab slot so that cancelling or moving a timer is
//! O(log n) and allocates nothing.
//!
//! A [`Sleep`](super::Sleep) owns its slot from its first registration until it completes,
//! is reset after firing, or is dropped: the driver only marks a slot fired, never frees it,
//! so a slot id can never be reused under a `Sleep` that still holds it.
//!
//! Why a heap and not a hierarchical wheel: deadlines here are exact nanoseconds, which a
//! wheel would have to keep sorted in its finest level anyway; a 4-ary heap of 16-byte
//! entries keeps the hot comparisons in a few cache lines (log4 of a million is 10 levels),
//! and expiring is a batch of pops done by one thread. `examples/async_scale.rs` measures it
//! beside tokio's wheel.

use std::task::Waker;
use std::time::Duration;

const ARITY: usize = 4;
/// `Slot::pos` of a timer the driver has fired, whose `Sleep` has not collected it yet.
const FIRED: u32 = u32::MAX;
/// `Slot::pos` of a slot no `Sleep` holds.
const FREE: u32 = u32::MAX - 1;
/// Storage is not shrunk below this many entries: small drivers keep their buffers.
const MIN_CAPACITY: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// When the driver fires the timer.
    deadline_ns: u64,
    slot: u32,
}

#[derive(Debug)]
struct Slot {
    waker: Option<Waker>,
    /// Where the timer sits in the heap, or [`FIRED`] / [`FREE`].
    pos: u32,
    /// How long before its sleep's deadline the timer fires (the spin margin), in
    /// nanoseconds.
    margin_ns: u32,
}

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotState {
    Pending,
    Fired,
}

/// A slot given back by [`Timers::remove`].
#[derive(Debug)]
pub(crate) struct Removed {
    pub(crate) state: SlotState,
    /// The timer's spin margin.
    pub(crate) margin: Duration,
    /// For the caller to drop once the lock is released.
    pub(crate) waker: Option<Waker>,
}

fn margin_nanos(margin: Duration) -> u32 {
    u32::try_from(margin.as_nanos()).unwrap_or(u32::MAX)
}

/// What one [`Timers::expire`] did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Expired {
    pub(crate) fired: usize,
    /// How late the driver fired them (its own lateness, before any executor's), summed.
    pub(crate) late_total_ns: u64,
    pub(crate) late_max_ns: u64,
}

/// All pending timers of one driver.
#[derive(Debug, Default)]
pub(crate) struct Timers {
    heap: Vec<Entry>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    held: usize,
    max_pending: usize,
}

impl Timers {
    /// Adds a timer fired at `deadline_ns`, `margin` before its sleep's deadline; returns
    /// its slot.
    ///
    /// # Panics
    ///
    /// With more than about four billion timers held at once.
    pub(crate) fn insert(&mut self, deadline_ns: u64, margin: Duration, waker: Waker) -> u32 {
        let slot = Slot {
            waker: Some(waker),
            pos: FREE,
            margin_ns: margin_nanos(margin),
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = slot;
                id
            }
            None => {
                let id = u32::try_from(self.slots.len())
                    .ok()
                    .filter(|&id| id < FREE)
                    .expect("fewer than four billion timers held at once");
                self.slots.push(slot);
                id
            }
        };
        self.held += 1;
        self.push(id, deadline_ns);
        id
    }

    fn push(&mut self, id: u32, deadline_ns: u64) {
        self.heap.push(Entry {
            deadline_ns,
            slot: id,
        });
        self.sift_up(self.heap.len() - 1);
        self.max_pending = self.max_pending.max(self.heap.len());
    }

    /// The state of a slot held by a `Sleep`.
    pub(crate) fn state(&self, id: u32) -> SlotState {
        let slot = &self.slots[id as usize];
        debug_assert_ne!(slot.pos, FREE, "a freed slot used");
        match slot.pos {
            FIRED => SlotState::Fired,
            _ => SlotState::Pending,
        }
    }

    /// The spin margin of a slot held by a `Sleep`.
    pub(crate) fn margin(&self, id: u32) -> Duration {
        Duration::from_nanos(self.slots[id as usize].margin_ns.into())
    }

    /// Moves a pending timer to fire at `deadline_ns`, `margin` before its deadline, in
    /// place; a fired one goes back in the heap.
    pub(crate) fn reschedule(&mut self, id: u32, deadline_ns: u64, margin: Duration) {
        self.slots[id as usize].margin_ns = margin_nanos(margin);
        match self.slots[id as usize].pos {
            FIRED => self.push(id, deadline_ns),
            pos => {
                let pos = pos as usize;
                let earlier = deadline_ns < self.heap[pos].deadline_ns;
                self.heap[pos].deadline_ns = deadline_ns;
                if earlier {
                    self.sift_up(pos);
                } else {
                    self.sift_down(pos);
                }
            }
        }
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

    /// Frees a slot, taking its timer out of the heap if it is still there.
    pub(crate) fn remove(&mut self, id: u32) -> Removed {
        let state = self.state(id);
        let margin = self.margin(id);
        let slot = &mut self.slots[id as usize];
        let waker = slot.waker.take();
        let pos = std::mem::replace(&mut slot.pos, FREE);
        if pos != FIRED {
            self.remove_at(pos as usize);
        }
        self.held -= 1;
        if self.held == 0 {
            // Nothing refers to any slot: give the storage of a burst back.
            self.slots.clear();
            self.free.clear();
            self.slots.shrink_to(MIN_CAPACITY);
            self.free.shrink_to(MIN_CAPACITY);
        } else {
            self.free.push(id);
        }
        Removed {
            state,
            margin,
            waker,
        }
    }

    /// The earliest deadline, if any timer is pending.
    pub(crate) fn earliest(&self) -> Option<u64> {
        self.heap.first().map(|e| e.deadline_ns)
    }

    /// Fires up to `limit` timers due at or before `now_ns`, earliest first, moving their
    /// wakers to `wakers`.
    pub(crate) fn expire(&mut self, now_ns: u64, limit: usize, wakers: &mut Vec<Waker>) -> Expired {
        let mut expired = Expired::default();
        while expired.fired < limit {
            match self.heap.first() {
                Some(top) if top.deadline_ns <= now_ns => {}
                _ => break,
            }
            let entry = self.remove_at(0);
            let slot = &mut self.slots[entry.slot as usize];
            slot.pos = FIRED;
            wakers.extend(slot.waker.take());
            let late_ns = now_ns - entry.deadline_ns;
            expired.fired += 1;
            expired.late_total_ns = expired.late_total_ns.saturating_add(late_ns);
            expired.late_max_ns = expired.late_max_ns.max(late_ns);
        }
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
            + self.free.capacity() * std::mem::size_of::<u32>()
    }

    fn remove_at(&mut self, pos: usize) -> Entry {
        let last = self.heap.pop().expect("remove_at on an empty heap");
        if pos == self.heap.len() {
            self.shrink_heap();
            return last;
        }
        let removed = std::mem::replace(&mut self.heap[pos], last);
        self.slots[last.slot as usize].pos = pos as u32;
        if pos > 0 && last.deadline_ns < self.heap[(pos - 1) / ARITY].deadline_ns {
            self.sift_up(pos);
        } else {
            self.sift_down(pos);
        }
        self.shrink_heap();
        removed
    }

    /// Halves the heap's storage once it is three quarters empty: amortised O(1).
    fn shrink_heap(&mut self) {
        let (len, capacity) = (self.heap.len(), self.heap.capacity());
        if capacity > MIN_CAPACITY && len < capacity / 4 {
            self.heap.shrink_to((len * 2).max(MIN_CAPACITY));
        }
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
            let children = first..(first + ARITY).min(len);
            let child = children
                .min_by_key(|&c| self.heap[c].deadline_ns)
                .expect("at least one child");
            if self.heap[child].deadline_ns >= entry.deadline_ns {
                break;
            }
            self.place(pos, self.heap[child]);
            pos = child;
        }
        self.place(pos, entry);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

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

    /// A generator so deadlines and removals fall in no fixed pattern.
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    fn check_positions(timers: &Timers) {
        for (pos, entry) in timers.heap.iter().enumerate() {
            assert_eq!(timers.slots[entry.slot as usize].pos as usize, pos);
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
                    let deadline = xorshift(&mut x) % 1_000_000;
                    held.push((timers.insert(deadline, Duration::ZERO, waker()), deadline));
                }
                2 if !held.is_empty() => {
                    let (id, _) = held.swap_remove(x as usize % held.len());
                    assert_eq!(timers.remove(id).state, SlotState::Pending);
                }
                _ if !held.is_empty() => {
                    let at = x as usize % held.len();
                    let deadline = xorshift(&mut x) % 1_000_000;
                    timers.reschedule(held[at].0, deadline, Duration::ZERO);
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
            assert_eq!(timers.expire(next, 1, &mut wakers).fired, 1);
            fired.push(next);
        }
        assert_eq!(fired, expected);
        assert_eq!(wakers.len(), expected.len());
        for (id, _) in held {
            assert_eq!(timers.state(id), SlotState::Fired);
            timers.remove(id);
        }
        assert_eq!(timers.held, 0);
    }

    #[test]
    fn fired_slots_stay_held_until_collected_and_can_go_back() {
        let mut timers = Timers::default();
        let a = timers.insert(10, Duration::from_nanos(7), waker());
        let b = timers.insert(20, Duration::ZERO, waker());
        let mut wakers = Vec::new();
        let expired = timers.expire(15, usize::MAX, &mut wakers);
        assert_eq!(expired.fired, 1);
        assert_eq!((expired.late_total_ns, expired.late_max_ns), (5, 5));
        assert_eq!(timers.state(a), SlotState::Fired);
        assert_eq!(timers.margin(a), Duration::from_nanos(7));
        assert_eq!(timers.pending(), 1);
        let c = timers.insert(30, Duration::ZERO, waker());
        assert_ne!(c, a, "a fired slot is not reused while held");
        timers.reschedule(a, 40, Duration::from_nanos(3));
        assert_eq!(timers.state(a), SlotState::Pending);
        assert_eq!(timers.margin(a), Duration::from_nanos(3));
        assert_eq!(timers.earliest(), Some(20));
        for id in [a, b, c] {
            timers.remove(id);
        }
        assert_eq!((timers.pending(), timers.held), (0, 0));
    }

    #[test]
    fn storage_is_given_back_when_empty() {
        let mut timers = Timers::default();
        let ids: Vec<u32> = (0..100_000)
            .map(|i| timers.insert(i, Duration::ZERO, waker()))
            .collect();
        let full = timers.allocated_bytes();
        assert!(full >= 100_000 * (16 + 24));
        for id in ids {
            timers.remove(id);
        }
        assert!(timers.allocated_bytes() <= MIN_CAPACITY * (16 + 24 + 4));
    }
}
