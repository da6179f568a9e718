//! The ring: the timers due in the next [`RING`] buckets of 2^[`BUCKET_SHIFT`] ns, each
//! bucket [`LANES`] lists threaded through the slots. Registering, moving or cancelling a
//! timer here is O(1) and allocates nothing; a bucket leaves the ring whole when its turn
//! comes (`Timers::expire`).

use super::slab::{Place, Slab, NIL};

/// A ring bucket spans 2^`BUCKET_SHIFT` ns (524 us): two of the driver's gathering
/// wake-ups (`pace.rs`), so a bucket moves out about once per two wake-ups of a dense
/// driver, and small enough that the run a bucket becomes stays in cache.
pub(super) const BUCKET_SHIFT: u32 = 19;
/// Buckets in the ring: 1.07 s of deadlines ahead, for most pacing and network timeouts.
pub(super) const RING: usize = 2048;
/// A bucket's timers are on this many lists (by slot number), walked side by side when the
/// bucket moves out: each slot read is a cache miss at scale, and one list would take them
/// one after another instead of overlapping them.
pub(super) const LANES: usize = 8;

/// The timers not yet due soon, by bucket. Bucket `b` (absolute: `deadline_ns >>
/// BUCKET_SHIFT`) lives at `b % RING`; the ring holds the buckets after `drained` and up
/// to `drained + RING`.
#[derive(Debug)]
pub(super) struct Ring {
    /// Each bucket's lists' first slots, or [`NIL`]: 64 KB inside the driver, so that no
    /// registration allocates them.
    heads: [[u32; LANES]; RING],
    /// Which buckets hold timers, a bit each.
    occupied: [u64; RING / 64],
    /// How many timers each bucket holds: the run's room is kept for the largest.
    counts: [u32; RING],
    /// Every bucket up to this one has moved out, or is not the ring's to hold.
    pub(super) drained: u64,
    /// The start of the earliest bucket holding timers, in ns, or `u64::MAX`.
    pub(super) first_ns: u64,
    /// The earliest fire time in that bucket, when known: kept as timers join it, forgotten
    /// when its earliest leaves or another bucket becomes the first.
    first_min_ns: Option<u64>,
    pub(super) len: usize,
}

impl Default for Ring {
    fn default() -> Ring {
        Ring {
            heads: [[NIL; LANES]; RING],
            occupied: [0; RING / 64],
            counts: [0; RING],
            drained: 0,
            first_ns: u64::MAX,
            first_min_ns: None,
            len: 0,
        }
    }
}

/// A bucket taken out of the ring: its lists, and how many timers they hold.
pub(super) struct Bucket {
    pub(super) lanes: [u32; LANES],
    pub(super) count: usize,
}

impl Ring {
    /// Whether the ring holds the bucket of `deadline_ns`.
    pub(super) fn covers(&self, deadline_ns: u64) -> bool {
        let bucket = deadline_ns >> BUCKET_SHIFT;
        bucket > self.drained && bucket - self.drained <= RING as u64
    }

    /// How many timers the bucket of `deadline_ns` holds.
    pub(super) fn count_of(&self, deadline_ns: u64) -> usize {
        self.counts[bucket_index(deadline_ns)] as usize
    }

    /// Adds the timer of slot `id` at the front of its bucket's list.
    pub(super) fn link(&mut self, slab: &mut Slab, id: u32) {
        let deadline_ns = slab.get(id).deadline_ns;
        let (bucket, index) = (deadline_ns >> BUCKET_SHIFT, bucket_index(deadline_ns));
        slab.push_front(&mut self.heads[index][lane_of(id)], id, Place::Ring);
        self.mark(index, true);
        self.counts[index] += 1;
        self.len += 1;
        let start = bucket << BUCKET_SHIFT;
        if start < self.first_ns {
            (self.first_ns, self.first_min_ns) = (start, Some(deadline_ns));
        } else if start == self.first_ns {
            self.first_min_ns = self.first_min_ns.map(|min| min.min(deadline_ns));
        }
    }

    /// Takes the timer of slot `id` out of its bucket.
    pub(super) fn unlink(&mut self, slab: &mut Slab, id: u32) {
        let deadline_ns = slab.get(id).deadline_ns;
        let start = deadline_ns >> BUCKET_SHIFT << BUCKET_SHIFT;
        if start == self.first_ns && self.first_min_ns == Some(deadline_ns) {
            self.first_min_ns = None;
        }
        let index = bucket_index(deadline_ns);
        slab.unlink(&mut self.heads[index][lane_of(id)], id);
        self.len -= 1;
        self.counts[index] -= 1;
        if self.counts[index] == 0 {
            self.mark(index, false);
            if start == self.first_ns {
                self.refresh_first();
            }
        }
    }

    /// The earliest fire time in the first bucket, kept or found by walking its lists.
    pub(super) fn first_min(&mut self, slab: &Slab) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        if self.first_min_ns.is_none() {
            let index = bucket_index(self.first_ns);
            self.first_min_ns = self.heads[index]
                .iter()
                .flat_map(|&head| slab.list(head))
                .map(|id| slab.get(id).deadline_ns)
                .min();
        }
        self.first_min_ns
    }

    /// Takes the first bucket out, marking it and every bucket before it drained.
    pub(super) fn take_first(&mut self) -> Bucket {
        let index = bucket_index(self.first_ns);
        let lanes = std::mem::replace(&mut self.heads[index], [NIL; LANES]);
        let count = std::mem::replace(&mut self.counts[index], 0) as usize;
        self.mark(index, false);
        self.drained = self.first_ns >> BUCKET_SHIFT;
        self.len -= count;
        self.refresh_first();
        Bucket { lanes, count }
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

    /// Each timer in its bucket's list, the occupancy bits, the counts, the first bucket
    /// and its earliest; every timer after `fired_through_ns`.
    #[cfg(test)]
    pub(super) fn check(&self, slab: &Slab, fired_through_ns: u64) {
        let mut in_ring = 0;
        let mut first_ns = u64::MAX;
        for (index, heads) in self.heads.iter().enumerate() {
            let occupied = self.occupied[index / 64] >> (index % 64) & 1 == 1;
            let empty = heads.iter().all(|&head| head == NIL);
            assert_eq!(occupied, !empty, "bucket {index}'s bit");
            let mut listed = 0;
            for (lane, &head) in heads.iter().enumerate() {
                let mut prev = NIL;
                for id in slab.list(head) {
                    let slot = slab.get(id);
                    assert_eq!((slot.place, slot.prev), (Place::Ring, prev));
                    assert_eq!(lane_of(id), lane);
                    assert!(self.covers(slot.deadline_ns));
                    assert_eq!(bucket_index(slot.deadline_ns), index);
                    assert!(slot.deadline_ns > fired_through_ns);
                    first_ns = first_ns.min(slot.deadline_ns >> BUCKET_SHIFT << BUCKET_SHIFT);
                    in_ring += 1;
                    listed += 1;
                    prev = id;
                }
            }
            assert_eq!(
                self.counts[index] as usize, listed,
                "bucket {index}'s count"
            );
        }
        assert_eq!(self.len, in_ring);
        assert_eq!(self.first_ns, first_ns);
        if let Some(min) = self.first_min_ns {
            let index = bucket_index(self.first_ns);
            let walked = self.heads[index]
                .iter()
                .flat_map(|&head| slab.list(head))
                .map(|id| slab.get(id).deadline_ns)
                .min();
            assert_eq!(Some(min), walked, "the first bucket's earliest");
        }
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
