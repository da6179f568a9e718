//! An indexed 4-ary min-heap of fire times: each entry's position is kept in its timer's
//! slot ([`Place::Heap`]), so that a timer is moved or taken out of the middle in
//! `O(log n)`.

use super::slab::{Place, Slab};

const ARITY: usize = 4;

/// A timer as the heap and the run hold it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    /// When the driver fires the timer.
    pub(super) deadline_ns: u64,
    pub(super) slot: u32,
}

#[derive(Debug, Default)]
pub(super) struct Heap {
    pub(super) entries: Vec<Entry>,
}

impl Heap {
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// The earliest entry.
    pub(super) fn first(&self) -> Option<&Entry> {
        self.entries.first()
    }

    /// Makes room for `total` entries.
    pub(super) fn reserve_total(&mut self, total: usize) {
        self.entries
            .reserve(total.saturating_sub(self.entries.len()));
    }

    /// Adds the timer of slot `id`; the caller keeps room for it, so this never allocates.
    pub(super) fn push(&mut self, slab: &mut Slab, id: u32) {
        debug_assert!(
            self.entries.len() < self.entries.capacity(),
            "the heap keeps room"
        );
        self.entries.push(Entry {
            deadline_ns: slab.get(id).deadline_ns,
            slot: id,
        });
        self.sift_up(slab, self.entries.len() - 1);
    }

    /// Moves the entry at `pos` to fire at `deadline_ns` (already in its slot).
    pub(super) fn update(&mut self, slab: &mut Slab, pos: usize, deadline_ns: u64) {
        let earlier = deadline_ns < self.entries[pos].deadline_ns;
        self.entries[pos].deadline_ns = deadline_ns;
        if earlier {
            self.sift_up(slab, pos);
        } else {
            self.sift_down(slab, pos);
        }
    }

    /// Takes the entry at `pos` out; its slot's place is left for the caller to set.
    pub(super) fn remove_at(&mut self, slab: &mut Slab, pos: usize) -> Entry {
        let last = self.entries.pop().expect("remove_at on an empty heap");
        if pos == self.entries.len() {
            return last;
        }
        let removed = std::mem::replace(&mut self.entries[pos], last);
        slab.get_mut(last.slot).place = Place::Heap(pos as u32);
        if pos > 0 && last.deadline_ns < self.entries[(pos - 1) / ARITY].deadline_ns {
            self.sift_up(slab, pos);
        } else {
            self.sift_down(slab, pos);
        }
        removed
    }

    /// Takes the earliest entry out, bottom-up: the hole it leaves walks down along the
    /// earliest children to a leaf, and the last entry, put there, sifts up. The last entry
    /// is among the latest, so it seldom rises far, and the walk down compares children
    /// only, not each level with it too: about a quarter fewer instructions per timer fired
    /// than the textbook pop (`docs/driver-cost.md`).
    pub(super) fn pop_earliest(&mut self, slab: &mut Slab) -> Entry {
        let last = self.entries.pop().expect("pop_earliest on an empty heap");
        let Some(&top) = self.entries.first() else {
            return last;
        };
        let len = self.entries.len();
        let mut hole = 0;
        loop {
            let first = hole * ARITY + 1;
            if first >= len {
                break;
            }
            let child = earliest_child(&self.entries, first);
            self.place(slab, hole, self.entries[child]);
            hole = child;
        }
        self.entries[hole] = last;
        self.sift_up(slab, hole);
        top
    }

    fn place(&mut self, slab: &mut Slab, pos: usize, entry: Entry) {
        self.entries[pos] = entry;
        slab.get_mut(entry.slot).place = Place::Heap(pos as u32);
    }

    fn sift_up(&mut self, slab: &mut Slab, mut pos: usize) {
        let entry = self.entries[pos];
        while pos > 0 {
            let parent = (pos - 1) / ARITY;
            if self.entries[parent].deadline_ns <= entry.deadline_ns {
                break;
            }
            self.place(slab, pos, self.entries[parent]);
            pos = parent;
        }
        self.place(slab, pos, entry);
    }

    fn sift_down(&mut self, slab: &mut Slab, mut pos: usize) {
        let entry = self.entries[pos];
        let len = self.entries.len();
        loop {
            let first = pos * ARITY + 1;
            if first >= len {
                break;
            }
            let child = earliest_child(&self.entries, first);
            if self.entries[child].deadline_ns >= entry.deadline_ns {
                break;
            }
            self.place(slab, pos, self.entries[child]);
            pos = child;
        }
        self.place(slab, pos, entry);
    }

    /// Heap order, and each entry's position in its slot.
    #[cfg(test)]
    pub(super) fn check(&self, slab: &Slab) {
        for (pos, entry) in self.entries.iter().enumerate() {
            let slot = slab.get(entry.slot);
            assert_eq!(slot.place, Place::Heap(pos as u32));
            assert_eq!(slot.deadline_ns, entry.deadline_ns);
            if pos > 0 {
                assert!(self.entries[(pos - 1) / ARITY].deadline_ns <= entry.deadline_ns);
            }
        }
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
