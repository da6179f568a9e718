//! The pending wakes of protocol 2: a pure data structure, no clock and no OS.
//!
//! A wake has a deadline and a spin tail. Its *start* is `deadline - spin`: until then the
//! scheduler may block; from then on it spins until the deadline, stopping at the start of
//! any other wake on the way (so a long tail never holds back another's answer). So there
//! are two heaps: `sleeping`, ordered by start, and `spinning`, ordered by deadline, which
//! a wake joins once its start has passed. Ties go to the earlier request, so answers come
//! out in deadline order and, for equal deadlines, in the order asked.
//!
//! Cancelling leaves the heap entry behind and forgets the id; a popped entry whose id no
//! longer maps to its sequence number is dropped. The heaps are rebuilt when such
//! leftovers outnumber the live entries, so memory follows what is pending.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

/// One pending wake as the heaps hold it; ordered by `(key, seq)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    key: i64,
    seq: u64,
    id: u64,
    deadline_ns: i64,
}

/// Why a wake was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// That id is pending already.
    Duplicate,
    /// The queue holds as many wakes as it may.
    Full,
}

/// What the scheduler should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Nothing is pending: block until a request arrives.
    Idle,
    /// Block until this time (the earliest start), or a request.
    SleepUntil(i64),
    /// Spin until this time (the earliest deadline of a wake past its start).
    SpinUntil(i64),
}

/// The pending wakes, by id.
#[derive(Debug)]
pub struct TimerQueue {
    sleeping: BinaryHeap<Reverse<Slot>>,
    spinning: BinaryHeap<Reverse<Slot>>,
    /// Live ids and the sequence number of their slot.
    live: HashMap<u64, u64>,
    next_seq: u64,
    max_pending: usize,
}

impl TimerQueue {
    /// An empty queue that holds at most `max_pending` wakes.
    pub fn new(max_pending: usize) -> TimerQueue {
        TimerQueue {
            sleeping: BinaryHeap::new(),
            spinning: BinaryHeap::new(),
            live: HashMap::new(),
            next_seq: 0,
            max_pending,
        }
    }

    /// How many wakes are pending.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.live.len()
    }

    /// Queues wake `id` for `deadline_ns`, spinning from `spin_ns` before it.
    ///
    /// # Errors
    ///
    /// [`Refused::Duplicate`] if `id` is pending (it stays as it was), [`Refused::Full`]
    /// at `max_pending`.
    pub fn insert(&mut self, id: u64, deadline_ns: i64, spin_ns: u64) -> Result<(), Refused> {
        if self.live.len() >= self.max_pending && !self.live.contains_key(&id) {
            return Err(Refused::Full);
        }
        let seq = self.next_seq;
        match self.live.entry(id) {
            Entry::Occupied(_) => return Err(Refused::Duplicate),
            Entry::Vacant(entry) => entry.insert(seq),
        };
        self.next_seq += 1;
        let spin = i64::try_from(spin_ns).unwrap_or(i64::MAX);
        self.sleeping.push(Reverse(Slot {
            key: deadline_ns.saturating_sub(spin),
            seq,
            id,
            deadline_ns,
        }));
        Ok(())
    }

    /// Forgets wake `id`; whether it was pending.
    pub fn cancel(&mut self, id: u64) -> bool {
        let was_pending = self.live.remove(&id).is_some();
        if was_pending && self.sleeping.len() + self.spinning.len() > 2 * self.live.len() + 64 {
            self.compact();
        }
        was_pending
    }

    /// Hands every wake due at `now_ns` to `fire`, as `(id, deadline_ns)`, in deadline
    /// order, and moves wakes whose start has passed into the spinning heap.
    pub fn fire_due(&mut self, now_ns: i64, mut fire: impl FnMut(u64, i64)) {
        while let Some(&Reverse(slot)) = self.sleeping.peek() {
            if slot.key > now_ns {
                break;
            }
            self.sleeping.pop();
            if self.is_live(&slot) {
                self.spinning.push(Reverse(Slot {
                    key: slot.deadline_ns,
                    ..slot
                }));
            }
        }
        while let Some(&Reverse(slot)) = self.spinning.peek() {
            if slot.key > now_ns {
                break;
            }
            self.spinning.pop();
            if self.is_live(&slot) {
                self.live.remove(&slot.id);
                fire(slot.id, slot.deadline_ns);
            }
        }
    }

    /// What to do after [`TimerQueue::fire_due`]: spin if a wake is past its start,
    /// else sleep until the earliest start.
    ///
    /// A spin lasts until the earliest deadline among the spinning wakes, or until the
    /// earliest start among the sleeping ones if that comes first: a spin tail may be
    /// seconds long, and every other wake falling due inside it must fire on its own time,
    /// not when the spin ends.
    pub fn next(&mut self) -> Next {
        self.drop_dead_tops();
        let start = self.sleeping.peek().map(|Reverse(slot)| slot.key);
        match (self.spinning.peek(), start) {
            (Some(Reverse(spinner)), Some(start)) => Next::SpinUntil(spinner.key.min(start)),
            (Some(Reverse(spinner)), None) => Next::SpinUntil(spinner.key),
            (None, Some(start)) => Next::SleepUntil(start),
            (None, None) => Next::Idle,
        }
    }

    fn is_live(&self, slot: &Slot) -> bool {
        self.live.get(&slot.id) == Some(&slot.seq)
    }

    /// Pops cancelled entries off both tops, so that [`TimerQueue::next`] never waits for
    /// a wake that no longer exists.
    fn drop_dead_tops(&mut self) {
        for heap in [&mut self.sleeping, &mut self.spinning] {
            while let Some(Reverse(slot)) = heap.peek() {
                if self.live.get(&slot.id) == Some(&slot.seq) {
                    break;
                }
                heap.pop();
            }
        }
    }

    fn compact(&mut self) {
        let live = &self.live;
        for heap in [&mut self.sleeping, &mut self.spinning] {
            heap.retain(|Reverse(slot)| live.get(&slot.id) == Some(&slot.seq));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(queue: &mut TimerQueue, now: i64) -> Vec<(u64, i64)> {
        let mut out = Vec::new();
        queue.fire_due(now, |id, deadline| out.push((id, deadline)));
        out
    }

    #[test]
    fn fires_in_deadline_order_then_request_order() {
        let mut queue = TimerQueue::new(100);
        queue.insert(1, 30, 0).unwrap();
        queue.insert(2, 10, 0).unwrap();
        queue.insert(3, 20, 0).unwrap();
        queue.insert(4, 10, 0).unwrap();
        assert_eq!(queue.next(), Next::SleepUntil(10));
        assert_eq!(fired(&mut queue, 9), []);
        assert_eq!(fired(&mut queue, 25), [(2, 10), (4, 10), (3, 20)]);
        assert_eq!(queue.len(), 1);
        assert_eq!(fired(&mut queue, 30), [(1, 30)]);
        assert_eq!(queue.next(), Next::Idle);
    }

    #[test]
    fn a_spin_tail_starts_early_and_fires_at_the_deadline() {
        let mut queue = TimerQueue::new(100);
        queue.insert(1, 1_000, 300).unwrap();
        queue.insert(2, 900, 0).unwrap();
        assert_eq!(queue.next(), Next::SleepUntil(700));
        assert_eq!(fired(&mut queue, 750), []);
        // The wake without a tail is still asleep until 900: the spin stops there.
        assert_eq!(queue.next(), Next::SpinUntil(900));
        assert_eq!(fired(&mut queue, 900), [(2, 900)]);
        assert_eq!(queue.next(), Next::SpinUntil(1_000));
        assert_eq!(fired(&mut queue, 999), []);
        assert_eq!(fired(&mut queue, 1_000), [(1, 1_000)]);
        assert_eq!(queue.next(), Next::Idle);
    }

    #[test]
    fn a_spin_stops_at_every_start_inside_it() {
        let mut queue = TimerQueue::new(100);
        queue.insert(1, 4_000_000_000, 4_000_000_000).unwrap();
        queue.insert(2, 10, 0).unwrap();
        queue.insert(3, 30, 5).unwrap();
        assert_eq!(fired(&mut queue, 0), []);
        assert_eq!(queue.next(), Next::SpinUntil(10));
        assert_eq!(fired(&mut queue, 10), [(2, 10)]);
        assert_eq!(queue.next(), Next::SpinUntil(25), "id 3's own spin starts");
        assert_eq!(fired(&mut queue, 25), []);
        assert_eq!(queue.next(), Next::SpinUntil(30));
        assert_eq!(fired(&mut queue, 30), [(3, 30)]);
        assert_eq!(queue.next(), Next::SpinUntil(4_000_000_000));
    }

    #[test]
    fn cancelled_wakes_never_fire_and_ids_come_free() {
        let mut queue = TimerQueue::new(100);
        queue.insert(1, 10, 0).unwrap();
        queue.insert(2, 20, 0).unwrap();
        assert_eq!(queue.insert(1, 5, 0), Err(Refused::Duplicate));
        assert!(queue.cancel(1));
        assert!(!queue.cancel(1));
        assert_eq!(queue.next(), Next::SleepUntil(20));
        queue.insert(1, 15, 0).unwrap();
        assert_eq!(fired(&mut queue, 100), [(1, 15), (2, 20)]);
        assert!(!queue.cancel(2), "a fired wake is no longer pending");
    }

    #[test]
    fn refuses_past_its_limit_and_compacts_after_cancels() {
        let mut queue = TimerQueue::new(2);
        queue.insert(1, 10, 0).unwrap();
        queue.insert(2, 10, 0).unwrap();
        assert_eq!(queue.insert(3, 10, 0), Err(Refused::Full));
        assert_eq!(queue.insert(2, 10, 0), Err(Refused::Duplicate));

        let mut queue = TimerQueue::new(10_000);
        for id in 0..1_000 {
            queue.insert(id, 1_000 + id as i64, 0).unwrap();
        }
        for id in 0..999 {
            assert!(queue.cancel(id));
        }
        assert!(
            queue.sleeping.len() < 100,
            "{} slots left",
            queue.sleeping.len()
        );
        assert_eq!(fired(&mut queue, i64::MAX), [(999, 1_999)]);
    }

    #[test]
    fn extreme_deadlines_and_spins_do_not_overflow() {
        let mut queue = TimerQueue::new(10);
        queue.insert(1, i64::MIN, u64::MAX).unwrap();
        queue.insert(2, i64::MAX, u64::MAX).unwrap();
        assert_eq!(fired(&mut queue, i64::MIN), [(1, i64::MIN)]);
        assert_eq!(queue.next(), Next::SleepUntil(0));
    }
}
