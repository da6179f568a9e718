//! The driver's pending timers: fire times in whole nanoseconds (a sleep's deadline, less
//! its spin margin when the driver has a spin tail) in a ring of buckets, the bucket being
//! fired sorted in a *run*, and an indexed 4-ary min-heap for the rest, with each timer's
//! place kept in a slab slot so that cancelling or moving a timer is O(log n) at worst and
//! allocates nothing.
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
//! # The ring, the run and the heap
//!
//! Deadlines here are exact nanoseconds. A 4-ary heap of 16-byte entries fires them in
//! order, but at 100,000 timers it is 1.6 MB, and the executor streams through many more
//! between two wake-ups of the driver: every pop then missed the cache on the heap's lower
//! levels and on the slot of each timer it moved, some 400 ns a timer here
//! (`docs/driver-cost.md`). So most timers never enter it:
//!
//! - **The ring**: [`RING`] buckets of 2^[`BUCKET_SHIFT`] ns (524 us; the ring spans
//!   1.07 s), each [`LANES`] lists threaded through the slots. Registering, moving or
//!   cancelling a timer there is O(1) and allocates nothing. The first bucket's earliest
//!   fire time is kept as timers join it (and found again by walking it when its earliest
//!   leaves), so the driver knows when to wake without taking the bucket out.
//! - **The run**: a bucket moves out of the ring only when its turn comes: in
//!   [`Timers::expire`], once its start is due (or within one bucket of it, for the driver's
//!   next look) and nothing in the run or the heap is later than its start. It goes into the
//!   run, sorted by fire time, and the driver fires it by moving a cursor along it,
//!   prefetching the slot [`RUN_LOOKAHEAD`] entries ahead: no heap to keep in order, no
//!   positions to write into cold slots (38% of the heap's firing time, `perf annotate`).
//!   A timer cancelled or moved from the run leaves a gap there. The run's room is kept for
//!   the ring's largest bucket by [`Timers::insert`], so that moving a bucket in never
//!   allocates; a bucket that outgrew it by resets goes into the heap instead.
//! - **The heap**: the timers of a bucket that already moved out (registered late, due
//!   within half a millisecond) and those beyond the ring's span. It keeps room for every
//!   pending timer, so that moving one into it (a reset) never allocates.
//!
//! Bucket moves are left to the driver's turn on purpose: a burst of tasks registers its
//! timers in random order, and a bucket moved out at the first registration (as one was
//! while the heap had to hold the earliest of all) sent every later timer due before it to
//! the heap, 44% of 100,000 in one replay. `punctual bench --scale` measures all of it
//! beside tokio's wheel.

use std::task::Waker;

use super::fired::FIRST_RESERVED_SLOT;
use crate::sys;

const ARITY: usize = 4;
/// `Slot::pos` of a slot no timer holds.
const FREE: u32 = u32::MAX;
/// `Slot::pos` of a timer in the ring.
const IN_RING: u32 = u32::MAX - 1;
/// `Slot::pos` of a timer in the run (the bucket being fired, in deadline order).
const IN_RUN: u32 = u32::MAX - 2;
/// While firing from the run, the slot this many entries ahead is prefetched: its waker is
/// read and the slot freed when its turn comes.
const RUN_LOOKAHEAD: usize = 8;
/// A ring bucket spans 2^`BUCKET_SHIFT` ns: 524 us, some 530 timers at the densest the
/// scale runs ask for (1,010 deadlines a millisecond), two of the driver's gathering
/// wake-ups (`pace.rs`). 262 us buckets measured the same (`docs/driver-cost.md`).
const BUCKET_SHIFT: u32 = 19;
/// Buckets in the ring: 1.07 s of deadlines ahead, room for the scale runs' 300 ms of
/// registration before 100 ms of deadlines, and for most pacing and network timeouts.
const RING: usize = 2048;
/// A bucket's timers are on this many lists (by slot number), walked side by side when the
/// bucket moves into the heap: each slot read is a cache miss at scale, and one list would
/// take them one after another (82% of the move's time, `perf annotate`).
const LANES: usize = 8;
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
    /// When the driver fires the timer (a heap or run entry carries its own copy).
    deadline_ns: u64,
    /// Where the timer sits in the heap, [`IN_RUN`], [`IN_RING`], or [`FREE`].
    pos: u32,
    /// For a free slot, the next free one; for a timer in the ring, the next in its bucket;
    /// or [`NO_SLOT`].
    next: u32,
    /// For a timer in the ring, the one before it in its bucket, or [`NO_SLOT`] for the
    /// bucket's first.
    prev: u32,
}

/// The timers not yet due soon, by bucket of 2^[`BUCKET_SHIFT`] ns. Bucket `b` (absolute:
/// `deadline_ns >> BUCKET_SHIFT`) lives at `b % RING`; the ring holds the buckets after
/// `drained` and up to `drained + RING`.
#[derive(Debug)]
struct Ring {
    /// Each bucket's lists' first slots, or [`NO_SLOT`]: 64 KB inside the driver, so that
    /// no registration allocates them.
    heads: [[u32; LANES]; RING],
    /// Which buckets hold timers, a bit each.
    occupied: [u64; RING / 64],
    /// How many timers each bucket holds: the run's room is kept for the largest.
    counts: [u32; RING],
    /// Every bucket up to this one has moved into the heap, or is not the ring's to hold.
    drained: u64,
    /// The start of the earliest bucket holding timers, in ns, or `u64::MAX`.
    first_ns: u64,
    /// The earliest fire time in that bucket, when known: kept as timers join it, forgotten
    /// when its earliest leaves or another bucket becomes the first.
    first_min_ns: Option<u64>,
    len: usize,
}

impl Default for Ring {
    fn default() -> Ring {
        Ring {
            heads: [[NO_SLOT; LANES]; RING],
            occupied: [0; RING / 64],
            counts: [0; RING],
            drained: 0,
            first_ns: u64::MAX,
            first_min_ns: None,
            len: 0,
        }
    }
}

impl Ring {
    /// Whether the ring holds the bucket of `deadline_ns`.
    fn covers(&self, deadline_ns: u64) -> bool {
        let bucket = deadline_ns >> BUCKET_SHIFT;
        bucket > self.drained && bucket - self.drained <= RING as u64
    }

    /// The earliest bucket holding timers, found by the occupancy bits from the one after
    /// `drained`, or `None`.
    fn earliest_bucket(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let start = (self.drained + 1) % RING as u64;
        let (word, bit) = ((start / 64) as usize, start % 64);
        let words = RING / 64;
        (0..=words).find_map(|k| {
            let at = (word + k) % words;
            let mut bits = self.occupied[at];
            if k == 0 {
                bits &= u64::MAX << bit;
            } else if k == words {
                bits &= !(u64::MAX << bit);
            }
            (bits != 0).then(|| {
                let index = at as u64 * 64 + u64::from(bits.trailing_zeros());
                self.drained + 1 + (index + RING as u64 - start) % RING as u64
            })
        })
    }

    fn refresh_first(&mut self) {
        self.first_min_ns = None;
        self.first_ns = self
            .earliest_bucket()
            .map_or(u64::MAX, |bucket| bucket << BUCKET_SHIFT);
    }

    fn mark(&mut self, index: usize, occupied: bool) {
        let (word, bit) = (index / 64, index % 64);
        if occupied {
            self.occupied[word] |= 1 << bit;
        } else {
            self.occupied[word] &= !(1 << bit);
        }
    }
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
    run: Vec<Entry>,
    slots: Vec<Slot>,
}

/// All pending timers of one driver.
#[derive(Debug)]
pub(crate) struct Timers {
    /// The timers due soon (and any beyond the ring's span); its earliest is the earliest
    /// of all. Its capacity is kept at least the number of pending timers.
    heap: Vec<Entry>,
    /// The bucket that last moved out of the ring, sorted by fire time: the timers from
    /// `run_at` on that are still pending, and the others' places, their `slot`
    /// [`NO_SLOT`]. Its room is kept for the ring's largest bucket.
    run: Vec<Entry>,
    /// The run's earliest pending entry, or its end; the entries before it have fired or
    /// gone.
    run_at: usize,
    /// Pending timers in the run.
    run_len: usize,
    ring: Ring,
    slots: Vec<Slot>,
    /// The first free slot, or [`NO_SLOT`]: a list threaded through `Slot::next`.
    free_head: u32,
    /// Every timer due at or before this has been fired; see `fired.rs`.
    fired_through_ns: u64,
    max_pending: usize,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers {
            heap: Vec::new(),
            run: Vec::new(),
            run_at: 0,
            run_len: 0,
            ring: Ring::default(),
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
            deadline_ns,
            pos: FREE,
            next: NO_SLOT,
            prev: NO_SLOT,
        };
        let id = match self.free_head {
            NO_SLOT => {
                let id = u32::try_from(self.slots.len())
                    .ok()
                    // Below the ids sleeps reserve, and below the marks of `Slot::pos`,
                    // so that no heap position is taken for one.
                    .filter(|&id| id < FIRST_RESERVED_SLOT.min(IN_RUN))
                    .expect("fewer than four billion timers pending at once");
                self.slots.push(slot);
                id
            }
            id => {
                self.free_head = std::mem::replace(&mut self.slots[id as usize], slot).next;
                id
            }
        };
        // Room in the heap for every pending timer, this one included.
        self.heap.reserve(self.ring.len + self.run_len + 1);
        self.place_new(id);
        // Room in the run for this timer's bucket, should it move in whole.
        if self.slots[id as usize].pos == IN_RING {
            let index = bucket_index(deadline_ns);
            let want = self.ring.counts[index] as usize;
            if self.run.capacity() < want {
                self.run.reserve(want - self.run.len());
            }
        }
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
        let pos = self.slots[id as usize].pos;
        debug_assert_ne!(pos, FREE, "a free slot rescheduled");
        if pos == IN_RING || pos == IN_RUN {
            if pos == IN_RING {
                self.unlink(id);
            } else {
                self.take_from_run(id);
            }
            self.slots[id as usize].deadline_ns = deadline_ns;
            self.place_new(id);
        } else {
            self.slots[id as usize].deadline_ns = deadline_ns;
            let pos = pos as usize;
            let earlier = deadline_ns < self.heap[pos].deadline_ns;
            self.heap[pos].deadline_ns = deadline_ns;
            if earlier {
                self.sift_up(pos);
            } else {
                self.sift_down(pos);
            }
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
        match pos {
            IN_RING => self.unlink(id),
            IN_RUN => self.take_from_run(id),
            pos => {
                self.remove_at(pos as usize);
            }
        }
        let waker = self.free_slot(id);
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
    /// megabytes) took some 600 us here, too long to hold up registrations.
    #[must_use = "drop the spare storage once the lock is released"]
    pub(crate) fn trim(&mut self) -> Spare {
        let mut spare = Spare::default();
        let pending = self.pending();
        if pending == 0 {
            if self.slots.capacity() > MIN_CAPACITY || self.heap.capacity() > MIN_CAPACITY {
                spare.slots = std::mem::replace(&mut self.slots, Vec::with_capacity(MIN_CAPACITY));
                spare.heap = std::mem::replace(&mut self.heap, Vec::with_capacity(MIN_CAPACITY));
            }
            if self.run.capacity() > MIN_CAPACITY {
                spare.run = std::mem::take(&mut self.run);
            }
            self.slots.clear();
            self.run.clear();
            self.run_at = 0;
            self.free_head = NO_SLOT;
            return spare;
        }
        let capacity = self.heap.capacity();
        if capacity > MIN_CAPACITY && pending < capacity / 4 {
            let mut smaller = Vec::with_capacity((pending * 2).max(MIN_CAPACITY));
            smaller.extend_from_slice(&self.heap);
            spare.heap = std::mem::replace(&mut self.heap, smaller);
        }
        spare
    }

    fn free_slot(&mut self, id: u32) -> Option<Waker> {
        let slot = &mut self.slots[id as usize];
        slot.pos = FREE;
        slot.next = self.free_head;
        self.free_head = id;
        slot.waker.take()
    }

    /// The earliest fire time, if any timer is pending.
    pub(crate) fn earliest(&mut self) -> Option<u64> {
        let settled = self.earliest_settled();
        if self.ring.len == 0 || settled.is_some_and(|next| next < self.ring.first_ns) {
            return settled;
        }
        let min = match self.ring.first_min_ns {
            Some(min) => min,
            None => {
                let min = self.first_bucket_min();
                self.ring.first_min_ns = Some(min);
                min
            }
        };
        Some(settled.map_or(min, |next| next.min(min)))
    }

    /// The earliest fire time in the heap and the run.
    fn earliest_settled(&self) -> Option<u64> {
        self.next_settled().map(|(deadline_ns, _)| deadline_ns)
    }

    /// The earliest fire time in the heap and the run, and whether it is the run's (the
    /// run's on a tie).
    fn next_settled(&self) -> Option<(u64, bool)> {
        match (self.heap.first(), self.run.get(self.run_at)) {
            (Some(top), Some(next)) if top.deadline_ns < next.deadline_ns => {
                Some((top.deadline_ns, false))
            }
            (_, Some(next)) => Some((next.deadline_ns, true)),
            (Some(top), None) => Some((top.deadline_ns, false)),
            (None, None) => None,
        }
    }

    /// The earliest fire time in the ring's first bucket, by walking its lists.
    fn first_bucket_min(&self) -> u64 {
        let index = bucket_index(self.ring.first_ns);
        let listed = |id: u32| Some(id).filter(|&id| id != NO_SLOT);
        self.ring.heads[index]
            .iter()
            .flat_map(|&head| {
                std::iter::successors(listed(head), |&id| listed(self.slots[id as usize].next))
            })
            .map(|id| self.slots[id as usize].deadline_ns)
            .min()
            .unwrap_or(u64::MAX)
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
            let from_run = match self.next_settled() {
                Some((next, from_run))
                    if next <= now_ns && (expired.fired < limit || last_ns == Some(next)) =>
                {
                    from_run
                }
                _ => break,
            };
            let entry = if from_run {
                self.pop_run()
            } else {
                self.pop_earliest()
            };
            last_ns = Some(entry.deadline_ns);
            wakers.extend(self.free_slot(entry.slot));
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
        if self.first_bucket_due(now_ns.saturating_add(1 << BUCKET_SHIFT)) {
            self.move_first_bucket();
        }
        expired
    }

    /// Timers waiting, in the heap or the ring.
    pub(crate) fn pending(&self) -> usize {
        self.heap.len() + self.run_len + self.ring.len
    }

    /// The most timers ever pending at once.
    pub(crate) fn max_pending(&self) -> usize {
        self.max_pending
    }

    /// Bytes of heap memory this structure holds (by capacity, not by use).
    pub(crate) fn allocated_bytes(&self) -> usize {
        (self.heap.capacity() + self.run.capacity()) * std::mem::size_of::<Entry>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// Puts the timer of slot `id`, pending but in neither the heap nor the ring, into the
    /// ring when it holds the timer's bucket, else into the heap (whose room for it is kept).
    fn place_new(&mut self, id: u32) {
        let deadline_ns = self.slots[id as usize].deadline_ns;
        // Every bucket at or before the fired-through mark's is past: none holds timers, so
        // the ring may start after the one before it. Otherwise a driver whose epoch is far
        // behind its deadlines would hold them all in the heap.
        let past = (self.fired_through_ns >> BUCKET_SHIFT).saturating_sub(1);
        self.ring.drained = self.ring.drained.max(past);
        if self.ring.covers(deadline_ns) {
            self.link(id);
        } else {
            debug_assert!(
                self.heap.len() < self.heap.capacity(),
                "the heap keeps room"
            );
            self.heap.push(Entry {
                deadline_ns,
                slot: id,
            });
            self.sift_up(self.heap.len() - 1);
        }
    }

    /// Moves the ring's first bucket out: into the run, sorted, when the run has no timer
    /// left and room for it (kept by [`Timers::insert`]); otherwise into the heap. The
    /// driver moves a bucket when its turn comes (`first_bucket_due`), so timers registered
    /// in any order wait in the ring until then.
    fn move_first_bucket(&mut self) {
        let bucket = self.ring.first_ns >> BUCKET_SHIFT;
        let index = bucket_index(self.ring.first_ns);
        let mut lanes = std::mem::replace(&mut self.ring.heads[index], [NO_SLOT; LANES]);
        let count = std::mem::replace(&mut self.ring.counts[index], 0) as usize;
        self.ring.mark(index, false);
        self.ring.drained = bucket;
        let into_run = self.run_len == 0 && self.run.capacity() >= count;
        if into_run {
            self.run.clear();
            self.run_at = 0;
        }
        for &id in lanes.iter().filter(|&&id| id != NO_SLOT) {
            sys::prefetch_ref(&self.slots[id as usize]);
        }
        // Round the lanes, one slot of each a turn: each slot was prefetched a turn ago.
        let mut open = lanes.iter().filter(|&&id| id != NO_SLOT).count();
        while open > 0 {
            for lane in &mut lanes {
                let id = *lane;
                if id == NO_SLOT {
                    continue;
                }
                let slot = &mut self.slots[id as usize];
                let (next, deadline_ns) = (slot.next, slot.deadline_ns);
                slot.next = NO_SLOT;
                if into_run {
                    slot.pos = IN_RUN;
                }
                match next {
                    NO_SLOT => open -= 1,
                    next => sys::prefetch_ref(&self.slots[next as usize]),
                }
                *lane = next;
                let entry = Entry {
                    deadline_ns,
                    slot: id,
                };
                if into_run {
                    self.run.push(entry);
                } else {
                    self.heap.push(entry);
                    self.sift_up(self.heap.len() - 1);
                }
                self.ring.len -= 1;
            }
        }
        if into_run {
            self.run.sort_unstable_by_key(|entry| entry.deadline_ns);
            self.run_len = count;
        }
        self.ring.refresh_first();
    }

    /// Takes the run's earliest pending entry, prefetching the slot [`RUN_LOOKAHEAD`]
    /// entries on.
    fn pop_run(&mut self) -> Entry {
        let entry = self.run[self.run_at];
        self.run_len -= 1;
        self.skip_run_gaps(self.run_at + 1);
        if let Some(ahead) = self.run.get(self.run_at + RUN_LOOKAHEAD) {
            if let Some(slot) = self.slots.get(ahead.slot as usize) {
                sys::prefetch_ref(slot);
            }
        }
        entry
    }

    /// Takes the timer of slot `id` out of the run, leaving a gap in its place.
    fn take_from_run(&mut self, id: u32) {
        let deadline_ns = self.slots[id as usize].deadline_ns;
        let pending = &self.run[self.run_at..];
        let from = self.run_at + pending.partition_point(|e| e.deadline_ns < deadline_ns);
        let at = (from..self.run.len())
            .find(|&at| self.run[at].slot == id)
            .expect("a timer in the run is in it");
        self.run[at].slot = NO_SLOT;
        self.run_len -= 1;
        self.slots[id as usize].pos = FREE;
        if at == self.run_at {
            self.skip_run_gaps(at + 1);
        }
    }

    /// Moves `run_at` to the first pending entry from `from` on, or to the run's end.
    fn skip_run_gaps(&mut self, from: usize) {
        self.run_at = self.run[from..]
            .iter()
            .position(|e| e.slot != NO_SLOT)
            .map_or(self.run.len(), |gap| from + gap);
    }

    /// Adds the timer of slot `id` at the front of its bucket's list.
    fn link(&mut self, id: u32) {
        let deadline_ns = self.slots[id as usize].deadline_ns;
        let (bucket, index) = (deadline_ns >> BUCKET_SHIFT, bucket_index(deadline_ns));
        let head = std::mem::replace(&mut self.ring.heads[index][lane_of(id)], id);
        if head != NO_SLOT {
            self.slots[head as usize].prev = id;
        }
        let slot = &mut self.slots[id as usize];
        (slot.pos, slot.next, slot.prev) = (IN_RING, head, NO_SLOT);
        self.ring.mark(index, true);
        self.ring.counts[index] += 1;
        self.ring.len += 1;
        let start = bucket << BUCKET_SHIFT;
        let ring = &mut self.ring;
        if start < ring.first_ns {
            (ring.first_ns, ring.first_min_ns) = (start, Some(deadline_ns));
        } else if start == ring.first_ns {
            ring.first_min_ns = ring.first_min_ns.map(|min| min.min(deadline_ns));
        }
    }

    /// Takes the timer of slot `id` out of its bucket.
    fn unlink(&mut self, id: u32) {
        let slot = &mut self.slots[id as usize];
        let (prev, next) = (slot.prev, slot.next);
        let bucket = slot.deadline_ns >> BUCKET_SHIFT;
        if bucket << BUCKET_SHIFT == self.ring.first_ns
            && self.ring.first_min_ns == Some(slot.deadline_ns)
        {
            self.ring.first_min_ns = None;
        }
        let index = bucket_index(slot.deadline_ns);
        (slot.pos, slot.next, slot.prev) = (FREE, NO_SLOT, NO_SLOT);
        match prev {
            NO_SLOT => self.ring.heads[index][lane_of(id)] = next,
            prev => self.slots[prev as usize].next = next,
        }
        if next != NO_SLOT {
            self.slots[next as usize].prev = prev;
        }
        self.ring.len -= 1;
        self.ring.counts[index] -= 1;
        if self.ring.counts[index] == 0 {
            self.ring.mark(index, false);
            if bucket << BUCKET_SHIFT == self.ring.first_ns {
                self.ring.refresh_first();
            }
        }
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

/// Where in the ring the bucket of `deadline_ns` lives.
fn bucket_index(deadline_ns: u64) -> usize {
    ((deadline_ns >> BUCKET_SHIFT) % RING as u64) as usize
}

/// Which of its bucket's lists the timer of slot `id` is on.
fn lane_of(id: u32) -> usize {
    id as usize % LANES
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
    use punctual_test_support::{xorshift, WakeCount};

    use super::*;

    fn waker() -> Waker {
        Waker::from(WakeCount::new())
    }

    const BYTES_PER_TIMER: usize = std::mem::size_of::<Entry>() + std::mem::size_of::<Slot>();

    /// Every structural promise: heap order and positions, the run's order, gaps and
    /// count, each ring timer in its bucket's list and after the earliest of the heap and
    /// the run, the occupancy bits, the counts.
    fn check_positions(timers: &Timers) {
        let pending_run = &timers.run[timers.run_at..];
        assert!(
            pending_run.first().is_none_or(|e| e.slot != NO_SLOT),
            "run_at is pending"
        );
        assert!(
            pending_run.is_sorted_by_key(|e| e.deadline_ns),
            "the run is sorted"
        );
        let mut in_run = 0;
        for entry in pending_run.iter().filter(|e| e.slot != NO_SLOT) {
            let slot = &timers.slots[entry.slot as usize];
            assert_eq!((slot.pos, slot.deadline_ns), (IN_RUN, entry.deadline_ns));
            assert!(entry.deadline_ns > timers.fired_through_ns);
            in_run += 1;
        }
        assert_eq!(timers.run_len, in_run);
        assert_eq!(
            timers
                .slots
                .iter()
                .filter(|slot| slot.pos == IN_RUN)
                .count(),
            in_run,
            "every timer in the run is in it once"
        );
        for (pos, entry) in timers.heap.iter().enumerate() {
            let slot = &timers.slots[entry.slot as usize];
            assert_eq!(slot.pos as usize, pos);
            assert_eq!(slot.deadline_ns, entry.deadline_ns);
            assert!(entry.deadline_ns > timers.fired_through_ns);
            if pos > 0 {
                assert!(timers.heap[(pos - 1) / ARITY].deadline_ns <= entry.deadline_ns);
            }
        }
        let ring = &timers.ring;
        let mut in_ring = 0;
        let mut first_ns = u64::MAX;
        for (index, heads) in ring.heads.iter().enumerate() {
            let occupied = ring.occupied[index / 64] >> (index % 64) & 1 == 1;
            let empty = heads.iter().all(|&head| head == NO_SLOT);
            assert_eq!(occupied, !empty, "bucket {index}'s bit");
            let mut listed = 0;
            for (lane, &head) in heads.iter().enumerate() {
                let (mut id, mut prev) = (head, NO_SLOT);
                while id != NO_SLOT {
                    let slot = &timers.slots[id as usize];
                    assert_eq!((slot.pos, slot.prev), (IN_RING, prev));
                    assert_eq!(lane_of(id), lane);
                    assert!(ring.covers(slot.deadline_ns));
                    assert_eq!(bucket_index(slot.deadline_ns), index);
                    assert!(slot.deadline_ns > timers.fired_through_ns);
                    first_ns = first_ns.min(slot.deadline_ns >> BUCKET_SHIFT << BUCKET_SHIFT);
                    in_ring += 1;
                    listed += 1;
                    (prev, id) = (id, slot.next);
                }
            }
            assert_eq!(
                ring.counts[index] as usize, listed,
                "bucket {index}'s count"
            );
        }
        assert_eq!(ring.len, in_ring);
        assert_eq!(ring.first_ns, first_ns);
        assert!(
            timers.heap.capacity() >= timers.pending(),
            "room for every timer"
        );
        if let Some(min) = ring.first_min_ns {
            assert_eq!(
                min,
                timers.first_bucket_min(),
                "the first bucket's earliest"
            );
        }
        if let Some(settled) = timers.earliest_settled() {
            assert!(settled > timers.fired_through_ns);
        }
    }

    #[test]
    fn expires_in_deadline_order_through_inserts_moves_and_removals() {
        // Spreads within the ring's first buckets, across all of it, and mostly past it.
        for spread in [1_000_000, 300_000_000, 1_000_000_000_000] {
            expires_in_order(spread);
        }
    }

    fn expires_in_order(spread: u64) {
        let mut timers = Timers::default();
        let mut x = 0x9E37_79B9_7F4A_7C15;
        let mut held: Vec<(u32, u64)> = Vec::new();
        for round in 0..20_000 {
            match xorshift(&mut x) % 4 {
                0 | 1 => {
                    let deadline = 1 + xorshift(&mut x) % spread;
                    held.push((timers.insert(deadline, waker()).unwrap(), deadline));
                }
                2 if !held.is_empty() => {
                    let (id, _) = held.swap_remove(x as usize % held.len());
                    assert!(timers.remove(id).waker.is_some());
                }
                _ if !held.is_empty() => {
                    let at = x as usize % held.len();
                    let deadline = 1 + xorshift(&mut x) % spread;
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
    fn fires_exactly_what_is_due_as_time_goes_on() {
        // The clock runs through the ring's span some thirty times, so buckets are reused
        // and timers move in and out of it while others fire.
        for spread in [1_000_000, 300_000_000, 10_000_000_000] {
            let mut timers = Timers::default();
            let mut x = 0x2545_F491_4F6C_DD1D ^ spread;
            let mut held: Vec<(u32, u64)> = Vec::new();
            let mut wakers = Vec::new();
            let mut now = 0u64;
            let (mut most_in_ring, mut most_in_run) = (0, 0);
            for round in 0..40_000 {
                match xorshift(&mut x) % 8 {
                    0..=2 => {
                        let deadline = now + 1 + xorshift(&mut x) % spread;
                        held.push((timers.insert(deadline, waker()).unwrap(), deadline));
                    }
                    3 if !held.is_empty() => {
                        let (id, _) = held.swap_remove(x as usize % held.len());
                        assert!(timers.remove(id).waker.is_some());
                    }
                    4 if !held.is_empty() => {
                        let at = x as usize % held.len();
                        let deadline = now + 1 + xorshift(&mut x) % spread;
                        assert!(timers.reschedule(held[at].0, deadline).is_none());
                        held[at].1 = deadline;
                    }
                    _ => {
                        now += xorshift(&mut x) % (3 << BUCKET_SHIFT);
                        let before = wakers.len();
                        let expired = timers.expire(now, usize::MAX, &mut wakers);
                        let due = held.iter().filter(|&&(_, d)| d <= now).count();
                        assert_eq!((expired.fired, wakers.len() - before), (due, due));
                        held.retain(|&(_, d)| d > now);
                        assert_eq!(timers.fired_through(), now);
                        drop(timers.trim());
                    }
                }
                assert_eq!(timers.pending(), held.len());
                assert_eq!(timers.earliest(), held.iter().map(|&(_, d)| d).min());
                most_in_ring = most_in_ring.max(timers.ring.len);
                most_in_run = most_in_run.max(timers.run_len);
                if round % 500 == 0 {
                    check_positions(&timers);
                }
            }
            assert!(most_in_ring > 0, "the ring was used");
            assert!(most_in_run > 0, "the run was used");
        }
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
        assert!(full >= 100_000 * BYTES_PER_TIMER);
        for id in ids {
            drop(timers.remove(id));
        }
        assert!(timers.allocated_bytes() <= MIN_CAPACITY * BYTES_PER_TIMER);
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
        assert!(timers.allocated_bytes() <= MIN_CAPACITY * BYTES_PER_TIMER);
    }

    /// `n` deadlines in random order over `spread` ns from `from`.
    fn shuffled(n: usize, from: u64, spread: u64) -> Vec<u64> {
        let mut x = 0x5851_F42D_4C95_7F2D;
        (0..n).map(|_| from + xorshift(&mut x) % spread).collect()
    }

    #[test]
    fn timers_registered_in_any_order_wait_in_the_ring_until_their_turn() {
        let mut timers = Timers::default();
        // A burst's registrations, 300 ms to 400 ms ahead, in random order, and one far
        // timer (a 10 s timeout) that must not pull the others out of the ring.
        let deadlines = shuffled(10_000, 300_000_000, 100_000_000);
        timers.insert(10_000_000_000, waker()).unwrap();
        for &deadline in &deadlines {
            timers.insert(deadline, waker()).unwrap();
        }
        check_positions(&timers);
        assert_eq!((timers.heap.len(), timers.ring.len), (1, 10_000));
        assert_eq!(timers.earliest(), deadlines.iter().copied().min());
        // Fired as time goes on, every bucket from the run, none through the heap.
        let mut sorted = deadlines.clone();
        sorted.sort_unstable();
        let (mut wakers, mut fired, mut now) = (Vec::new(), 0, 300_000_000);
        while fired < sorted.len() {
            now += 250_000;
            fired += timers.expire(now, usize::MAX, &mut wakers).fired;
            assert_eq!(fired, sorted.partition_point(|&d| d <= now));
            assert_eq!(timers.heap.len(), 1, "only the far timer is in the heap");
            check_positions(&timers);
        }
        assert_eq!(timers.pending(), 1);
    }

    #[test]
    fn cancelling_and_moving_timers_of_the_run_leaves_it_in_order() {
        let mut timers = Timers::default();
        let deadlines = shuffled(1_000, 2_000_000, 500_000);
        let ids: Vec<u32> = deadlines
            .iter()
            .map(|&deadline| timers.insert(deadline, waker()).unwrap())
            .collect();
        // Fire the first half of the bucket: the rest is in the run.
        let mut sorted = deadlines.clone();
        sorted.sort_unstable();
        let mut wakers = Vec::new();
        let middle = sorted[500];
        assert_eq!(
            timers.expire(middle - 1, usize::MAX, &mut wakers).fired,
            500
        );
        assert_eq!(timers.run_len, 500);
        // The earliest pending (at the cursor), one in the middle, and one moved out.
        let pending: Vec<usize> = (0..1_000).filter(|&i| deadlines[i] >= middle).collect();
        let at_cursor = *pending.iter().min_by_key(|&&i| deadlines[i]).unwrap();
        let (in_middle, moved) = (pending[100], pending[200]);
        assert!(timers.remove(ids[at_cursor]).waker.is_some());
        assert!(timers.remove(ids[in_middle]).waker.is_some());
        assert!(timers.reschedule(ids[moved], 900_000_000).is_none());
        check_positions(&timers);
        assert_eq!(timers.run_len, 497);
        let mut expected: Vec<u64> = pending
            .iter()
            .filter(|&&i| i != at_cursor && i != in_middle && i != moved)
            .map(|&i| deadlines[i])
            .collect();
        expected.sort_unstable();
        assert_eq!(timers.earliest(), expected.first().copied());
        let mut fired = Vec::new();
        while let Some(next) = timers.earliest().filter(|&next| next < 900_000_000) {
            assert!(timers.expire(next, 1, &mut wakers).fired >= 1);
            fired.push(next);
            check_positions(&timers);
        }
        fired.dedup();
        expected.dedup();
        assert_eq!(fired, expected);
        assert_eq!(timers.earliest(), Some(900_000_000));
    }

    #[test]
    fn firing_buckets_from_the_run_allocates_nothing() {
        let mut timers = Timers::default();
        for deadline in shuffled(10_000, 10_000_000, 100_000_000) {
            timers.insert(deadline, waker()).unwrap();
        }
        let full = timers.allocated_bytes();
        let mut wakers = Vec::with_capacity(10_000);
        let mut now = 10_000_000;
        while timers.pending() > 0 {
            now += 100_000;
            timers.expire(now, usize::MAX, &mut wakers);
            assert_eq!(timers.allocated_bytes(), full, "no realloc while firing");
        }
        assert_eq!(wakers.len(), 10_000);
    }
}
