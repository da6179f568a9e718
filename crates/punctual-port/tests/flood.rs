//! Protocol 2 under a flood: tens of thousands of wakes at once, every one answered, in
//! deadline order.

mod common;

use common::protocol2::{answers, encode, now_ns, port, woke};
use punctual_port::frame::push_frame;
use punctual_port::protocol2::wire::{Answer, Request};

const MS: i64 = 1_000_000;

/// As many 21-byte wakes as fit in one frame.
const MAX_WAKES_PER_FRAME: usize = 65_535 / 21;

/// 50,000 wakes with deadlines over 500 ms, half WAKE_AT and half WAKE_AFTER, written in
/// one go in frames of 1 to 3,120 wakes, then a NOW. The deadlines fall on a 10 us grid,
/// so that many are equal.
///
/// Wakes fire in deadline order, equal deadlines in the order asked. The one exception the
/// protocol allows is a WAKE_AT whose deadline had passed when the port took it (its answer
/// can only come after those already sent); the NOW's answer bounds when the port took the
/// flood, so an exception is accepted only for a WAKE_AT due before that. A WAKE_AFTER
/// counts from when the port took it, so it has no exception.
#[test]
fn a_flood_of_wakes_is_answered_whole_and_in_deadline_order() {
    const COUNT: u64 = 50_000;
    const GRID_NS: i64 = 10_000;
    // Time to take the whole flood before the first deadline: about 100 ms in a debug
    // build on Linux, 200 ms under Wine.
    const LEAD_NS: i64 = 300 * MS;
    let mut rng = fastrand::Rng::with_seed(11);
    let mut port = port(&[]);
    let base_ns = now_ns(&mut port) + LEAD_NS;
    let requests: Vec<Request> = (0..COUNT)
        .map(|id| {
            let offset_ns = rng.i64(0..500 * MS / GRID_NS) * GRID_NS;
            if rng.bool() {
                Request::WakeAt {
                    id,
                    deadline_ns: base_ns + offset_ns,
                    spin_ns: 0,
                }
            } else {
                Request::WakeAfter {
                    id,
                    duration_ns: offset_ns,
                    spin_ns: 0,
                }
            }
        })
        .collect();
    let mut bytes = Vec::new();
    let mut rest = &requests[..];
    while !rest.is_empty() {
        let size = if rng.bool() {
            rng.usize(1..=16)
        } else {
            rng.usize(1..=MAX_WAKES_PER_FRAME)
        };
        let (frame, after) = rest.split_at(size.min(rest.len()));
        push_frame(&mut bytes, &encode(frame));
        rest = after;
    }
    push_frame(&mut bytes, &encode(&[Request::Now { id: u64::MAX }]));
    port.send_raw(&bytes);
    let got = answers(&port, COUNT as usize + 1);

    let taken_by_ns = got
        .iter()
        .find_map(|answer| match *answer {
            Answer::Clock { now_ns, .. } => Some(now_ns),
            _ => None,
        })
        .expect("the NOW's answer");
    let mut answered = vec![false; COUNT as usize];
    let mut latest: Option<(i64, u64)> = None;
    let mut late_arrivals = 0;
    for answer in got.iter().filter(|a| !matches!(a, Answer::Clock { .. })) {
        let (id, deadline_ns, _) = woke(answer);
        let seen = &mut answered[id as usize];
        assert!(!*seen, "id {id} answered twice");
        *seen = true;
        // Ids are in the order asked.
        let order = (deadline_ns, id);
        match latest {
            Some(before) if order < before => {
                let excused = matches!(requests[id as usize], Request::WakeAt { .. })
                    && deadline_ns < taken_by_ns;
                assert!(
                    excused,
                    "id {id} (deadline {deadline_ns} ns) answered after id {} (deadline {} \
                     ns): {:?}",
                    before.1, before.0, requests[id as usize]
                );
                late_arrivals += 1;
            }
            _ => latest = Some(order),
        }
    }
    assert!(answered.iter().all(|&seen| seen), "a wake never answered");
    println!(
        "{COUNT} wakes answered in order; the port had taken them all {} ms after they were \
         sent, the first deadline {} ms after; {late_arrivals} WAKE_AT taken after their \
         deadline and answered out of order",
        (taken_by_ns - (base_ns - LEAD_NS)) / MS,
        LEAD_NS / MS
    );
}
