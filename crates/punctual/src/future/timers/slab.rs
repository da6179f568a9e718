//! The slots that hold the pending timers: one per timer, found by its number, reused
//! through a free list threaded through the slots themselves, so that registering a timer
//! allocates only when more are pending than ever before.

use std::task::Waker;

use super::super::fired::FIRST_RESERVED_SLOT;

/// The end of a list threaded through the slots, and a run entry whose timer has gone.
pub(super) const NIL: u32 = u32::MAX;

/// Where a slot's timer waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// No timer holds the slot: it is on the free list, or being placed.
    Free,
    /// In the ring, on one of its bucket's lists.
    Ring,
    /// In the wheel, on one of its slots' lists.
    Wheel,
    /// In the run (the bucket being fired, in deadline order).
    Run,
    /// In the heap, at this position.
    Heap(u32),
}

#[derive(Debug)]
pub(super) struct Slot {
    pub(super) waker: Option<Waker>,
    /// When the driver fires the timer (a heap or run entry carries its own copy).
    pub(super) deadline_ns: u64,
    pub(super) place: Place,
    /// For a free slot, the next free one; for a timer on a list, the next on it; or
    /// [`NIL`].
    pub(super) next: u32,
    /// For a timer on a list, the one before it, or [`NIL`] for the list's first.
    pub(super) prev: u32,
}

/// The slots, and the free ones among them.
#[derive(Debug)]
pub(super) struct Slab {
    pub(super) slots: Vec<Slot>,
    /// The first free slot, or [`NIL`]: a list threaded through `Slot::next`.
    free_head: u32,
}

impl Default for Slab {
    fn default() -> Slab {
        Slab {
            slots: Vec::new(),
            free_head: NIL,
        }
    }
}

impl Slab {
    /// Takes a slot for a timer fired at `deadline_ns`, the free slot freed last if any;
    /// its place is [`Place::Free`] until the caller places it.
    ///
    /// # Panics
    ///
    /// With more than about four billion timers pending at once.
    pub(super) fn take(&mut self, deadline_ns: u64, waker: Waker) -> u32 {
        let slot = Slot {
            waker: Some(waker),
            deadline_ns,
            place: Place::Free,
            next: NIL,
            prev: NIL,
        };
        match self.free_head {
            NIL => {
                let id = u32::try_from(self.slots.len())
                    .ok()
                    // Below the ids sleeps reserve (and so below `NIL`).
                    .filter(|&id| id < FIRST_RESERVED_SLOT)
                    .expect("fewer than four billion timers pending at once");
                self.slots.push(slot);
                id
            }
            id => {
                self.free_head = std::mem::replace(&mut self.slots[id as usize], slot).next;
                id
            }
        }
    }

    /// Frees the slot of a timer already out of the ring, the run and the heap, and hands
    /// back its waker.
    pub(super) fn free(&mut self, id: u32) -> Option<Waker> {
        let slot = &mut self.slots[id as usize];
        slot.place = Place::Free;
        slot.next = self.free_head;
        self.free_head = id;
        slot.waker.take()
    }

    /// Lets every slot go: no timer is pending.
    pub(super) fn clear(&mut self) {
        self.slots.clear();
        self.free_head = NIL;
    }

    /// Swaps the storage for room for `capacity` slots, returning the old (no timer is
    /// pending).
    pub(super) fn replace_storage(&mut self, capacity: usize) -> Vec<Slot> {
        self.free_head = NIL;
        std::mem::replace(&mut self.slots, Vec::with_capacity(capacity))
    }

    pub(super) fn get(&self, id: u32) -> &Slot {
        &self.slots[id as usize]
    }

    pub(super) fn get_mut(&mut self, id: u32) -> &mut Slot {
        &mut self.slots[id as usize]
    }

    pub(super) fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Adds the timer of slot `id` at the front of the list that starts at `head`.
    pub(super) fn push_front(&mut self, head: &mut u32, id: u32, place: Place) {
        let old = std::mem::replace(head, id);
        if old != NIL {
            self.slots[old as usize].prev = id;
        }
        let slot = &mut self.slots[id as usize];
        (slot.place, slot.next, slot.prev) = (place, old, NIL);
    }

    /// Takes the timer of slot `id` off the list that starts at `head`; its place is
    /// [`Place::Free`] until the caller places it again or frees it.
    pub(super) fn unlink(&mut self, head: &mut u32, id: u32) {
        let slot = &mut self.slots[id as usize];
        let (prev, next) = (slot.prev, slot.next);
        (slot.place, slot.next, slot.prev) = (Place::Free, NIL, NIL);
        match prev {
            NIL => *head = next,
            prev => self.slots[prev as usize].next = next,
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        }
    }

    /// The slots of the list that starts at `head`, in order.
    pub(super) fn list(&self, head: u32) -> impl Iterator<Item = u32> + '_ {
        let listed = |id: u32| Some(id).filter(|&id| id != NIL);
        std::iter::successors(listed(head), move |&id| {
            listed(self.slots[id as usize].next)
        })
    }

    #[cfg(test)]
    pub(super) fn free_head(&self) -> u32 {
        self.free_head
    }
}
