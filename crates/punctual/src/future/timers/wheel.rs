//! The wheel: the timers beyond the ring, in [`LEVELS`] levels of 64 slots over ring
//! buckets (level `k`'s slots span 64^`k` buckets), each slot an intrusive list through the
//! timers' slots. Registering or cancelling a timer here is O(1) and allocates nothing; as
//! the ring's span moves on, the slots it reaches are taken out whole and their timers
//! placed again, into the ring or a lower level (`Timers::advance_ring`), so a timer a
//! minute ahead is placed at most three or four times before it fires, and never waits in
//! the heap.
//!
//! # Where a timer goes
//!
//! The wheel keeps a *reference* bucket, the ring's last, and holds only timers in later
//! buckets. A timer of bucket `b` goes into the level of the highest bit in which `b`
//! differs from the reference, at its digit there (`b >> 6k` modulo 64): so its digits
//! above that level are the reference's, and its digit at that level is greater. The
//! reference only moves to the start of the earliest occupied slot (taking that slot out)
//! or, once no occupied slot starts by then, anywhere before the earliest; either way the
//! rule stays true for every timer left, so a timer's level and slot are found again from
//! its fire time alone, and the earliest slot is the lowest level's first.

use super::ring::BUCKET_SHIFT;
use super::slab::{Place, Slab, NIL};

/// Bits of a bucket number per level.
const LEVEL_BITS: u32 = 6;
const SLOTS: usize = 1 << LEVEL_BITS;
/// Levels enough for every bucket number of a `u64` nanosecond fire time.
const LEVELS: usize = (64 - BUCKET_SHIFT).div_ceil(LEVEL_BITS) as usize;

#[derive(Debug)]
pub(super) struct Wheel {
    /// Each slot's list's first timer, or [`NIL`].
    heads: [[u32; SLOTS]; LEVELS],
    /// Which slots hold timers, a bit each.
    occupied: [u64; LEVELS],
    /// How many timers each slot holds.
    counts: [[u32; SLOTS]; LEVELS],
    /// The bucket every timer here is later than; see the module's docs.
    reference: u64,
    /// The earliest fire time in the earliest slot, when known: kept as timers join it,
    /// forgotten when its earliest leaves or the slot is taken out.
    first_min_ns: Option<u64>,
    pub(super) len: usize,
}

impl Wheel {
    /// An empty wheel for timers after bucket `reference`.
    pub(super) fn new(reference: u64) -> Wheel {
        Wheel {
            heads: [[NIL; SLOTS]; LEVELS],
            occupied: [0; LEVELS],
            counts: [[0; SLOTS]; LEVELS],
            reference,
            first_min_ns: None,
            len: 0,
        }
    }

    /// The bucket every timer here must be later than.
    pub(super) fn reference(&self) -> u64 {
        self.reference
    }

    /// Adds the timer of slot `id`, due in a bucket after the reference.
    pub(super) fn link(&mut self, slab: &mut Slab, id: u32) {
        let deadline_ns = slab.get(id).deadline_ns;
        let (level, index) = self.slot_of(deadline_ns);
        if self.first_min_ns.is_some() {
            match self.earliest_slot() {
                Some(first) if first < (level, index) => {}
                Some(first) if first == (level, index) => {
                    self.first_min_ns = self.first_min_ns.map(|min| min.min(deadline_ns));
                }
                _ => self.first_min_ns = Some(deadline_ns),
            }
        } else if self.len == 0 {
            self.first_min_ns = Some(deadline_ns);
        }
        slab.push_front(&mut self.heads[level][index], id, Place::Wheel);
        self.occupied[level] |= 1 << index;
        self.counts[level][index] += 1;
        self.len += 1;
    }

    /// Takes the timer of slot `id` out.
    pub(super) fn unlink(&mut self, slab: &mut Slab, id: u32) {
        let deadline_ns = slab.get(id).deadline_ns;
        let (level, index) = self.slot_of(deadline_ns);
        if self.first_min_ns == Some(deadline_ns) {
            self.first_min_ns = None;
        }
        slab.unlink(&mut self.heads[level][index], id);
        self.counts[level][index] -= 1;
        if self.counts[level][index] == 0 {
            self.occupied[level] &= !(1 << index);
        }
        self.len -= 1;
    }

    /// The first bucket of the earliest occupied slot.
    pub(super) fn next_start(&self) -> Option<u64> {
        self.earliest_slot()
            .map(|(level, index)| self.start_of(level, index))
    }

    /// The earliest fire time here, kept or found by walking the earliest slot's list.
    pub(super) fn first_min(&mut self, slab: &Slab) -> Option<u64> {
        let (level, index) = self.earliest_slot()?;
        if self.first_min_ns.is_none() {
            self.first_min_ns = slab
                .list(self.heads[level][index])
                .map(|id| slab.get(id).deadline_ns)
                .min();
        }
        self.first_min_ns
    }

    /// Takes out the earliest occupied slot when it starts at or before bucket `by`: moves
    /// the reference to its start and returns its list, whose timers the caller places
    /// again (their places are still [`Place::Wheel`] until then).
    pub(super) fn take_due(&mut self, by: u64) -> Option<u32> {
        let (level, index) = self.earliest_slot()?;
        let start = self.start_of(level, index);
        if start > by {
            return None;
        }
        self.reference = start;
        self.first_min_ns = None;
        self.occupied[level] &= !(1 << index);
        self.len -= std::mem::replace(&mut self.counts[level][index], 0) as usize;
        Some(std::mem::replace(&mut self.heads[level][index], NIL))
    }

    /// Moves the reference on to bucket `to`, which no occupied slot starts at or before.
    pub(super) fn move_reference(&mut self, to: u64) {
        debug_assert!(to >= self.reference);
        debug_assert!(self.next_start().map_or(true, |start| start > to));
        self.reference = to;
    }

    /// The level and slot of a timer due at `deadline_ns`, after the reference.
    fn slot_of(&self, deadline_ns: u64) -> (usize, usize) {
        let bucket = deadline_ns >> BUCKET_SHIFT;
        debug_assert!(
            bucket > self.reference,
            "a wheel timer is after the reference"
        );
        let high = 63 - (bucket ^ self.reference).leading_zeros();
        let level = (high / LEVEL_BITS) as usize;
        let index = (bucket >> (level as u32 * LEVEL_BITS)) as usize % SLOTS;
        (level, index)
    }

    /// The lowest level's first occupied slot.
    fn earliest_slot(&self) -> Option<(usize, usize)> {
        let level = self.occupied.iter().position(|&bits| bits != 0)?;
        Some((level, self.occupied[level].trailing_zeros() as usize))
    }

    /// The first bucket of slot `index` of `level`: the reference's digits above the level.
    fn start_of(&self, level: usize, index: usize) -> u64 {
        let shift = level as u32 * LEVEL_BITS;
        let above = (shift + LEVEL_BITS).min(63);
        (self.reference >> above << above) | ((index as u64) << shift)
    }

    /// The levels holding timers.
    #[cfg(test)]
    pub(super) fn occupied_levels(&self) -> impl Iterator<Item = usize> + '_ {
        (0..LEVELS).filter(|&level| self.occupied[level] != 0)
    }

    /// Each timer in the slot its fire time gives, later than the reference; the
    /// occupancy bits; the count and the earliest slot's earliest.
    #[cfg(test)]
    pub(super) fn check(&self, slab: &Slab, fired_through_ns: u64) {
        let mut listed = 0;
        for level in 0..LEVELS {
            for index in 0..SLOTS {
                let head = self.heads[level][index];
                assert_eq!(head != NIL, self.occupied[level] >> index & 1 == 1);
                let mut prev = NIL;
                let in_slot = slab.list(head).count();
                assert_eq!(self.counts[level][index] as usize, in_slot);
                for id in slab.list(head) {
                    let slot = slab.get(id);
                    assert_eq!((slot.place, slot.prev), (Place::Wheel, prev));
                    assert!(slot.deadline_ns >> BUCKET_SHIFT > self.reference);
                    assert_eq!(self.slot_of(slot.deadline_ns), (level, index));
                    assert!(slot.deadline_ns > fired_through_ns);
                    listed += 1;
                    prev = id;
                }
            }
        }
        assert_eq!(self.len, listed);
        if let (Some(min), Some((level, index))) = (self.first_min_ns, self.earliest_slot()) {
            let walked = slab
                .list(self.heads[level][index])
                .map(|id| slab.get(id).deadline_ns)
                .min();
            assert_eq!(Some(min), walked, "the earliest slot's earliest");
        }
    }
}
