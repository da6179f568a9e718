//! The store checked against a model: a sorted map of what is pending, through random
//! registrations, resets, cancellations and advances of the clock, with fire times from a
//! microsecond to ten minutes ahead (every level of the wheel, resets across levels and
//! into and out of the heap), ties, and firing limits that cut batches short.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use punctual_test_support::{xorshift, WakeCount};

use super::tests::check_positions;
use super::*;

/// A duration log-uniform from 1 us to 600 s, in ns.
fn log_uniform(x: &mut u64) -> u64 {
    let unit = (xorshift(x) >> 11) as f64 / (1u64 << 53) as f64;
    let (low, high) = (1e3f64.ln(), 6e11f64.ln());
    (low + unit * (high - low)).exp() as u64
}

struct Model {
    timers: Timers,
    /// Pending timers by (fire time, registration number), each with its slot.
    pending: BTreeMap<(u64, u64), u32>,
    /// Each pending slot's key in `pending`, and its waker's count.
    by_slot: HashMap<u32, ((u64, u64), Arc<WakeCount>)>,
    registered: u64,
    now_ns: u64,
}

impl Model {
    fn register(&mut self, fire_ns: u64) {
        let count = WakeCount::new();
        let result = self.timers.insert(fire_ns, Waker::from(Arc::clone(&count)));
        if fire_ns <= self.timers.fired_through() {
            assert!(result.is_err(), "a timer due by the mark is refused");
            return;
        }
        let id = result.expect("a timer after the mark is taken");
        self.registered += 1;
        let key = (fire_ns, self.registered);
        assert!(self.pending.insert(key, id).is_none());
        assert!(
            self.by_slot.insert(id, (key, count)).is_none(),
            "slot {id} in use"
        );
    }

    fn any(&self, x: &mut u64) -> Option<u32> {
        let n = self.by_slot.len();
        (n > 0).then(|| *self.by_slot.keys().nth(xorshift(x) as usize % n).unwrap())
    }

    fn reset(&mut self, id: u32, fire_ns: u64) {
        let (key, count) = self.by_slot.remove(&id).unwrap();
        self.pending.remove(&key);
        match self.timers.reschedule(id, fire_ns) {
            Some(removed) => {
                assert!(fire_ns <= self.timers.fired_through());
                removed.wake();
                assert_eq!(count.get(), 1, "a reset to a due time wakes at once");
            }
            None => {
                assert!(fire_ns > self.timers.fired_through());
                let key = (fire_ns, key.1);
                self.pending.insert(key, id);
                self.by_slot.insert(id, (key, count));
            }
        }
    }

    fn cancel(&mut self, id: u32) {
        let (key, count) = self.by_slot.remove(&id).unwrap();
        self.pending.remove(&key);
        let removed = self.timers.remove(id);
        assert!(removed.waker.is_some());
        drop(removed);
        assert_eq!(count.get(), 0, "a cancelled timer is not woken");
    }

    fn advance(&mut self, to_ns: u64, limit: usize) {
        self.now_ns = to_ns;
        // What should fire: the earliest due, up to `limit`, and any tied with the last.
        let mut due: Vec<((u64, u64), u32)> = Vec::new();
        for (&key, &id) in &self.pending {
            let tied = due.last().is_some_and(|&((last, _), _)| last == key.0);
            if key.0 > to_ns || (due.len() >= limit && !tied) {
                break;
            }
            due.push((key, id));
        }
        let mut wakers = Vec::new();
        let expired = self.timers.expire(to_ns, limit, &mut wakers);
        assert_eq!((expired.fired, wakers.len()), (due.len(), due.len()));
        for waker in wakers {
            waker.wake();
        }
        for (key, id) in due {
            self.pending.remove(&key);
            let (_, count) = self.by_slot.remove(&id).unwrap();
            assert_eq!(count.get(), 1, "timer due at {} fired once", key.0);
        }
        let mark = self.timers.fired_through();
        assert!(mark <= to_ns);
        if let Some((&(next, _), _)) = self.pending.iter().next() {
            assert!(next > mark, "every pending timer is after the mark");
        }
        for (_, count) in self.by_slot.values() {
            assert_eq!(count.get(), 0, "no pending timer was woken");
        }
    }

    fn check(&mut self) {
        assert_eq!(self.timers.pending(), self.pending.len());
        let earliest = self.pending.keys().next().map(|&(fire_ns, _)| fire_ns);
        assert_eq!(self.timers.earliest(), earliest);
    }
}

#[test]
fn the_store_fires_what_a_sorted_model_fires() {
    for seed in [1u64, 0x9E37_79B9_7F4A_7C15, 0xDEAD_BEEF] {
        let mut x = seed;
        let mut model = Model {
            timers: Timers::default(),
            pending: BTreeMap::new(),
            by_slot: HashMap::new(),
            registered: 0,
            // An epoch far from zero, as a driver's clock runs for hours.
            now_ns: 1 << 40,
        };
        let mut used_levels = [false; 8];
        for round in 0..30_000u32 {
            let now = model.now_ns;
            match xorshift(&mut x) % 16 {
                0..=5 => model.register(now + log_uniform(&mut x)),
                // A tie with a pending timer.
                6 => {
                    if let Some(id) = model.any(&mut x) {
                        let (key, _) = model.by_slot[&id];
                        model.register(key.0);
                    }
                }
                7..=8 => {
                    if let Some(id) = model.any(&mut x) {
                        model.reset(id, now + log_uniform(&mut x));
                    }
                }
                // A reset to a time already due, or far past any level in use.
                9 => {
                    if let Some(id) = model.any(&mut x) {
                        let fire_ns = match xorshift(&mut x) % 3 {
                            0 => model.timers.fired_through(),
                            1 => now + 1,
                            _ => now + (1 << 50),
                        };
                        model.reset(id, fire_ns);
                    }
                }
                10..=12 => {
                    if let Some(id) = model.any(&mut x) {
                        model.cancel(id);
                    }
                }
                _ => {
                    let limit = [1, 64, usize::MAX][xorshift(&mut x) as usize % 3];
                    let step = log_uniform(&mut x) / [1, 10, 1000][xorshift(&mut x) as usize % 3];
                    model.advance(now + step, limit);
                }
            }
            model.check();
            for level in model.timers.wheel.occupied_levels() {
                used_levels[level] = true;
            }
            if round % 2_000 == 0 {
                check_positions(&model.timers);
            }
        }
        check_positions(&model.timers);
        assert!(
            used_levels[..4].iter().all(|&used| used),
            "the wheel's first four levels were used: {used_levels:?}"
        );
        // Then the clock runs until everything has fired, and storage goes back.
        while let Some(next) = model.timers.earliest() {
            let limit = [1, 64, usize::MAX][xorshift(&mut x) as usize % 3];
            model.advance(next.max(model.now_ns), limit);
            model.check();
        }
        assert!(model.pending.is_empty());
        drop(model.timers.trim());
        // Room for MIN_CAPACITY slots, heap entries and run entries at most.
        let kept = std::mem::size_of::<Slot>() + 2 * std::mem::size_of::<Entry>();
        assert!(model.timers.allocated_bytes() <= MIN_CAPACITY * kept);
    }
}
