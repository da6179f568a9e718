use punctual_test_support::{xorshift, WakeCount};

use super::*;

fn waker() -> Waker {
    Waker::from(WakeCount::new())
}

const BYTES_PER_TIMER: usize = std::mem::size_of::<Entry>() + std::mem::size_of::<Slot>();

/// Every structural promise: heap order and positions, the run's order, gaps and count,
/// each ring timer in its bucket's list, the occupancy bits, the counts; every pending
/// timer after the mark, and room in the heap for all of them.
pub(super) fn check_positions(timers: &Timers) {
    timers.heap.check(&timers.slab);
    for entry in &timers.heap.entries {
        assert!(entry.deadline_ns > timers.fired_through_ns);
    }
    timers.run.check(&timers.slab, timers.fired_through_ns);
    timers.ring.check(&timers.slab, timers.fired_through_ns);
    timers.wheel.check(&timers.slab, timers.fired_through_ns);
    assert_eq!(
        timers.wheel.reference(),
        timers.ring.drained + RING as u64,
        "the wheel holds what is past the ring"
    );
    for entry in timers
        .heap
        .entries
        .iter()
        .chain(&timers.run.entries[timers.run.at..])
    {
        assert!(
            entry.slot == NIL || entry.deadline_ns >> BUCKET_SHIFT <= timers.ring.drained,
            "the heap and the run hold buckets moved out"
        );
    }
    assert!(
        timers.heap.capacity() >= timers.pending(),
        "room for every timer"
    );
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
    assert_eq!((timers.slab.slots.len(), timers.slab.free_head()), (0, NIL));
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
            most_in_run = most_in_run.max(timers.run.len);
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
    assert_ne!(timers.slab.get(late).place, Place::Free);
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
    // timer (a 10 s timeout) that must not pull the others out of the ring, nor wait in
    // the heap.
    let deadlines = shuffled(10_000, 300_000_000, 100_000_000);
    timers.insert(10_000_000_000, waker()).unwrap();
    for &deadline in &deadlines {
        timers.insert(deadline, waker()).unwrap();
    }
    check_positions(&timers);
    assert_eq!(
        (timers.heap.len(), timers.ring.len, timers.wheel.len),
        (0, 10_000, 1)
    );
    assert_eq!(timers.earliest(), deadlines.iter().copied().min());
    // Fired as time goes on, every bucket from the run, none through the heap.
    let mut sorted = deadlines.clone();
    sorted.sort_unstable();
    let (mut wakers, mut fired, mut now) = (Vec::new(), 0, 300_000_000);
    while fired < sorted.len() {
        now += 250_000;
        fired += timers.expire(now, usize::MAX, &mut wakers).fired;
        assert_eq!(fired, sorted.partition_point(|&d| d <= now));
        assert_eq!(timers.heap.len(), 0, "none through the heap");
        assert_eq!(timers.wheel.len, 1, "the far timer waits in the wheel");
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
    assert_eq!(timers.run.len, 500);
    // The earliest pending (at the cursor), one in the middle, and one moved out.
    let pending: Vec<usize> = (0..1_000).filter(|&i| deadlines[i] >= middle).collect();
    let at_cursor = *pending.iter().min_by_key(|&&i| deadlines[i]).unwrap();
    let (in_middle, moved) = (pending[100], pending[200]);
    assert!(timers.remove(ids[at_cursor]).waker.is_some());
    assert!(timers.remove(ids[in_middle]).waker.is_some());
    assert!(timers.reschedule(ids[moved], 900_000_000).is_none());
    check_positions(&timers);
    assert_eq!(timers.run.len, 497);
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

#[test]
fn resets_across_the_ring_the_wheel_and_the_heap_allocate_nothing() {
    let mut timers = Timers::default();
    let mut x = 0x1234_5678_9ABC_DEF1;
    let mut now = 1u64 << 36;
    // The mark at `now`, so that the ring's span starts there.
    timers.expire(now, usize::MAX, &mut Vec::new());
    assert_eq!(timers.fired_through(), now);
    // From a millisecond to ten minutes ahead: the ring and four levels of the wheel.
    let far = |x: &mut u64| 1_000_000u64 << (xorshift(x) % 20);
    let ids: Vec<u32> = (0..10_000)
        .map(|_| timers.insert(now + far(&mut x), waker()).unwrap())
        .collect();
    let full = timers.allocated_bytes();
    let mut wakers = Vec::with_capacity(ids.len());
    for round in 0..20 {
        // The clock moves on, and the next bucket moves out of the ring.
        now += 300_000;
        timers.expire(now, usize::MAX, &mut wakers);
        assert_eq!(
            timers.allocated_bytes(),
            full,
            "round {round}: firing allocated"
        );
        for &id in &ids {
            // A pending timer, moved across levels, into the ring, or into the heap (a
            // bucket already moved out: just after the mark).
            let fire_ns = match xorshift(&mut x) % 8 {
                0 => timers.fired_through() + 1,
                _ => now + far(&mut x),
            };
            if timers.slab.get(id).place != Place::Free {
                assert!(timers.reschedule(id, fire_ns).is_none());
            }
        }
        assert_eq!(
            timers.allocated_bytes(),
            full,
            "round {round}: a reset allocated"
        );
        let (heap, wheel, ring) = (timers.heap.len(), timers.wheel.len, timers.ring.len);
        assert!(
            heap > 0 && wheel > 0 && ring > 0,
            "round {round}: {heap}, {wheel}, {ring}"
        );
        check_positions(&timers);
    }
}
