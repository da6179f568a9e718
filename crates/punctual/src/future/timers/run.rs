//! The run: the bucket that last moved out of the ring, sorted by fire time, fired by
//! moving a cursor along it. No heap to keep in order and no positions to write into
//! slots as timers fire; a timer cancelled or moved out of the run leaves a gap.

use super::heap::Entry;
use super::slab::{Place, Slab, NIL};
use crate::sys;

/// While firing from the run, the slot this many entries ahead is prefetched: its waker is
/// read and the slot freed when its turn comes.
const RUN_LOOKAHEAD: usize = 8;

#[derive(Debug, Default)]
pub(super) struct Run {
    /// The timers from `at` on that are still pending, and the others' places, their
    /// `slot` [`NIL`]. Its room is kept for the ring's largest bucket.
    pub(super) entries: Vec<Entry>,
    /// The earliest pending entry, or the end; the entries before it have fired or gone.
    pub(super) at: usize,
    /// Pending timers in the run.
    pub(super) len: usize,
}

impl Run {
    /// The earliest pending entry.
    pub(super) fn next(&self) -> Option<&Entry> {
        self.entries.get(self.at)
    }

    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Makes room for a bucket of `count` timers, so that moving it in never allocates.
    pub(super) fn reserve_for(&mut self, count: usize) {
        if self.entries.capacity() < count {
            self.entries.reserve(count - self.entries.len());
        }
    }

    /// Whether a bucket of `count` timers can move in now: no timer left, and room.
    pub(super) fn can_take(&self, count: usize) -> bool {
        self.len == 0 && self.entries.capacity() >= count
    }

    /// Empties the run for a bucket to move in.
    pub(super) fn start(&mut self) {
        self.entries.clear();
        self.at = 0;
    }

    /// Adds a timer of the bucket moving in, in any order, until [`Run::sort`].
    pub(super) fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Sorts the bucket that moved in.
    pub(super) fn sort(&mut self) {
        self.entries.sort_unstable_by_key(|entry| entry.deadline_ns);
        self.len = self.entries.len();
    }

    /// Takes the earliest pending entry, prefetching the slot [`RUN_LOOKAHEAD`] entries on.
    pub(super) fn pop(&mut self, slab: &Slab) -> Entry {
        let entry = self.entries[self.at];
        self.len -= 1;
        self.skip_gaps(self.at + 1);
        if let Some(ahead) = self.entries.get(self.at + RUN_LOOKAHEAD) {
            if let Some(slot) = slab.slots.get(ahead.slot as usize) {
                sys::prefetch_ref(slot);
            }
        }
        entry
    }

    /// Takes the timer of slot `id` out, leaving a gap in its place.
    pub(super) fn take(&mut self, slab: &mut Slab, id: u32) {
        let deadline_ns = slab.get(id).deadline_ns;
        let pending = &self.entries[self.at..];
        let from = self.at + pending.partition_point(|e| e.deadline_ns < deadline_ns);
        let at = (from..self.entries.len())
            .find(|&at| self.entries[at].slot == id)
            .expect("a timer in the run is in it");
        self.entries[at].slot = NIL;
        self.len -= 1;
        slab.get_mut(id).place = Place::Free;
        if at == self.at {
            self.skip_gaps(at + 1);
        }
    }

    /// Lets the storage go (no timer is pending), returning it if it was more than `keep`.
    pub(super) fn clear(&mut self, keep: usize) -> Vec<Entry> {
        let spare = if self.entries.capacity() > keep {
            std::mem::take(&mut self.entries)
        } else {
            Vec::new()
        };
        self.entries.clear();
        self.at = 0;
        spare
    }

    /// Moves `at` to the first pending entry from `from` on, or to the end.
    fn skip_gaps(&mut self, from: usize) {
        self.at = self.entries[from..]
            .iter()
            .position(|e| e.slot != NIL)
            .map_or(self.entries.len(), |gap| from + gap);
    }

    /// The run's order, gaps and count, each of its timers in it once; every pending
    /// timer after `fired_through_ns`.
    #[cfg(test)]
    pub(super) fn check(&self, slab: &Slab, fired_through_ns: u64) {
        let pending = &self.entries[self.at..];
        assert!(
            pending.first().is_none_or(|e| e.slot != NIL),
            "at is pending"
        );
        assert!(
            pending.is_sorted_by_key(|e| e.deadline_ns),
            "the run is sorted"
        );
        let mut listed = 0;
        for entry in pending.iter().filter(|e| e.slot != NIL) {
            let slot = slab.get(entry.slot);
            assert_eq!(
                (slot.place, slot.deadline_ns),
                (Place::Run, entry.deadline_ns)
            );
            assert!(entry.deadline_ns > fired_through_ns);
            listed += 1;
        }
        assert_eq!(self.len, listed);
        assert_eq!(
            slab.slots.iter().filter(|s| s.place == Place::Run).count(),
            listed,
            "every timer in the run is in it once"
        );
    }
}
