//! Protocol 2 through real pipes: tagged wakes, their order and lateness, cancels, the
//! port's clock, and error answers that leave the port serving.

mod common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::protocol2::{answers, now_ns, port, send, SANE};
use punctual_port::protocol2::wire::{kind, Answer, Reason, Request};

#[test]
fn the_clock_only_moves_forward() {
    let mut port = port(&[]);
    let first = now_ns(&mut port);
    std::thread::sleep(Duration::from_millis(2));
    let second = now_ns(&mut port);
    assert!(first >= 0);
    assert!(second - first >= 2_000_000, "{first} then {second}");
}

#[test]
fn many_wakes_answer_once_each_in_deadline_order() {
    let mut port = port(&[]);
    let base = now_ns(&mut port) + 300_000_000;
    // 1000 wakes over 200 ms, sent in one frame in a shuffled order (a fixed permutation).
    let count = 1_000u64;
    let requests: Vec<Request> = (0..count)
        .map(|i| (i * 7_919) % count)
        .map(|i| Request::WakeAt {
            id: i,
            deadline_ns: base + (i as i64) * 200_000,
            spin_ns: 0,
        })
        .collect();
    send(&mut port, &requests);

    let mut seen = HashSet::new();
    let mut last_deadline = i64::MIN;
    for answer in answers(&port, count as usize) {
        let Answer::Woke {
            id,
            deadline_ns,
            lateness_ns,
        } = answer
        else {
            panic!("expected a wake, got {answer:?}");
        };
        assert!(seen.insert(id), "id {id} answered twice");
        assert_eq!(deadline_ns, base + (id as i64) * 200_000, "id {id}");
        assert!(
            deadline_ns >= last_deadline,
            "out of deadline order at id {id}"
        );
        assert!(lateness_ns < SANE, "id {id} {lateness_ns} ns late");
        last_deadline = deadline_ns;
    }
    // Every wake fired at or after its deadline on the port's clock.
    assert!(now_ns(&mut port) >= last_deadline);
}

#[test]
fn wake_after_sleeps_at_least_the_duration_and_negative_is_at_once() {
    let mut port = port(&[]);
    let sent = Instant::now();
    send(
        &mut port,
        &[
            Request::WakeAfter {
                id: 1,
                duration_ns: 20_000_000,
                spin_ns: 0,
            },
            Request::WakeAfter {
                id: 2,
                duration_ns: -5_000_000_000,
                spin_ns: 0,
            },
            Request::WakeAfter {
                id: 3,
                duration_ns: 0,
                spin_ns: 0,
            },
        ],
    );
    let got = answers(&port, 3);
    let ids: Vec<u64> = got
        .iter()
        .map(|a| match a {
            Answer::Woke { id, .. } => *id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, [2, 3, 1], "the at-once wakes first");
    assert!(sent.elapsed() >= Duration::from_millis(20));
    for answer in got {
        let Answer::Woke { lateness_ns, .. } = answer else {
            unreachable!()
        };
        // A negative duration is "now", not five seconds ago.
        assert!(lateness_ns < SANE);
    }
}

#[test]
fn spin_tails_per_request_and_per_port_are_never_early() {
    for extra in [&[][..], &["--spin", "300000"]] {
        let mut port = port(extra);
        let base = now_ns(&mut port) + 20_000_000;
        let requests: Vec<Request> = (0..20)
            .map(|i| Request::WakeAt {
                id: i,
                deadline_ns: base + (i as i64) * 500_000,
                spin_ns: if i % 2 == 0 { 200_000 } else { 0 },
            })
            .collect();
        send(&mut port, &requests);
        for answer in answers(&port, 20) {
            let Answer::Woke { lateness_ns, .. } = answer else {
                panic!("{answer:?}")
            };
            assert!(lateness_ns < SANE);
        }
        assert!(now_ns(&mut port) >= base + 19 * 500_000);
    }
}

#[test]
fn a_cancelled_wake_never_answers() {
    let mut port = port(&[]);
    let deadline = now_ns(&mut port) + 200_000_000;
    let wakes: Vec<Request> = (0..100)
        .map(|id| Request::WakeAt {
            id,
            deadline_ns: deadline + id as i64 * 1_000,
            spin_ns: 0,
        })
        .collect();
    send(&mut port, &wakes);
    let cancels: Vec<Request> = (0..100)
        .filter(|id| id % 2 == 0)
        .map(|id| Request::Cancel { id })
        .collect();
    send(&mut port, &cancels);
    for answer in answers(&port, 50) {
        match answer {
            Answer::Cancelled { id, pending } => {
                assert!(id % 2 == 0);
                assert!(pending, "id {id} was pending when cancelled");
            }
            other => panic!("expected a cancel, got {other:?}"),
        }
    }
    let woke: HashSet<u64> = answers(&port, 50)
        .into_iter()
        .map(|answer| match answer {
            Answer::Woke { id, .. } => id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(woke, (0..100).filter(|id| id % 2 == 1).collect());
    // Nothing more comes for the cancelled ones, and a late cancel finds nothing.
    assert_eq!(port.next_frame_within(Duration::from_millis(300)), None);
    send(&mut port, &[Request::Cancel { id: 1 }]);
    assert_eq!(
        answers(&port, 1),
        [Answer::Cancelled {
            id: 1,
            pending: false
        }]
    );
}

#[test]
fn bad_requests_get_error_answers_and_the_port_carries_on() {
    let mut port = port(&[]);
    // An empty frame.
    port.send_frame(&[]);
    // An unknown kind with an id, and a request after it in the same frame (skipped).
    let mut unknown = vec![0x7F];
    unknown.extend_from_slice(&42u64.to_be_bytes());
    Request::Now { id: 9 }.encode(&mut unknown);
    port.send_frame(&unknown);
    // A truncated wake with its id, and one too short to hold an id.
    let mut truncated = Vec::new();
    Request::WakeAt {
        id: 43,
        deadline_ns: 0,
        spin_ns: 0,
    }
    .encode(&mut truncated);
    truncated.truncate(15);
    port.send_frame(&truncated);
    port.send_frame(&[kind::CANCEL, 1, 2]);
    // A duplicate id: the pending wake stands.
    send(
        &mut port,
        &[
            Request::WakeAfter {
                id: 44,
                duration_ns: 50_000_000,
                spin_ns: 0,
            },
            Request::WakeAfter {
                id: 44,
                duration_ns: 1,
                spin_ns: 0,
            },
        ],
    );
    let error = |reason, id| Answer::Error { reason, id };
    assert_eq!(
        answers(&port, 5),
        [
            error(Reason::EmptyFrame, None),
            error(Reason::UnknownKind, Some(42)),
            error(Reason::Truncated, Some(43)),
            error(Reason::Truncated, None),
            error(Reason::DuplicateId, Some(44)),
        ]
    );
    // Still serving: the pending wake fires, and the clock answers.
    assert!(matches!(
        answers(&port, 1)[..],
        [Answer::Woke { id: 44, .. }]
    ));
    assert!(now_ns(&mut port) > 0);
}

#[test]
fn past_its_limit_a_wake_gets_an_error_and_the_rest_are_served() {
    let mut port = port(&["--max-pending", "3"]);
    let far = now_ns(&mut port) + 60_000_000_000;
    let wakes: Vec<Request> = (0..4)
        .map(|id| Request::WakeAt {
            id,
            deadline_ns: far,
            spin_ns: 0,
        })
        .collect();
    send(&mut port, &wakes);
    assert_eq!(
        answers(&port, 1),
        [Answer::Error {
            reason: Reason::TooManyPending,
            id: Some(3)
        }]
    );
    // A cancel makes room.
    send(
        &mut port,
        &[
            Request::Cancel { id: 0 },
            Request::WakeAfter {
                id: 5,
                duration_ns: 0,
                spin_ns: 0,
            },
        ],
    );
    let got = answers(&port, 2);
    assert_eq!(
        got[0],
        Answer::Cancelled {
            id: 0,
            pending: true
        }
    );
    assert!(matches!(got[1], Answer::Woke { id: 5, .. }));
}

#[test]
fn the_end_of_input_exits_0_and_a_cut_frame_exits_2() {
    let mut port = port(&[]);
    send(
        &mut port,
        &[Request::WakeAfter {
            id: 1,
            duration_ns: 60_000_000_000,
            spin_ns: 0,
        }],
    );
    port.close_input();
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");

    let mut port = self::port(&[]);
    port.send_raw(&[0, 21, kind::NOW]);
    port.close_input();
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(2));
    assert!(
        stderr.contains("ended after 1 of the 21 payload bytes"),
        "{stderr}"
    );
}

/// The layout in docs/port-protocol.md, byte by byte, independent of the crate's encoder.
#[test]
fn the_documented_bytes() {
    let mut port = port(&[]);
    // NOW, id 0x0102030405060708.
    port.send_raw(&[0, 9, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]);
    let frame = port.next_frame();
    assert_eq!(frame.len(), 17);
    assert_eq!(frame[..9], [0x82, 1, 2, 3, 4, 5, 6, 7, 8]);
    // WAKE_AFTER id 7, 0 ns, spin 0: a WOKE whose lateness is at most a second.
    port.send_raw(&[
        0, 21, 0x01, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    let frame = port.next_frame();
    assert_eq!(frame.len(), 25);
    assert_eq!(frame[..9], [0x81, 0, 0, 0, 0, 0, 0, 0, 7]);
    assert!(u64::from_be_bytes(frame[17..25].try_into().unwrap()) < SANE);
    // CANCEL id 7: CANCELLED, not pending.
    port.send_raw(&[0, 9, 0x03, 0, 0, 0, 0, 0, 0, 0, 7]);
    assert_eq!(port.next_frame(), [0x83, 0, 0, 0, 0, 0, 0, 0, 7, 0]);
    // An unknown kind 0x09 with id 5: ERROR reason 2, id present.
    port.send_raw(&[0, 9, 0x09, 0, 0, 0, 0, 0, 0, 0, 5]);
    assert_eq!(port.next_frame(), [0xEE, 2, 1, 0, 0, 0, 0, 0, 0, 0, 5]);
    // TIMER_INFO id 6: TIMER, its two text lengths at 26..30 and the text after them.
    port.send_raw(&[0, 9, 0x05, 0, 0, 0, 0, 0, 0, 0, 6]);
    let frame = port.next_frame();
    assert_eq!(frame[..9], [0x84, 0, 0, 0, 0, 0, 0, 0, 6]);
    assert!(frame[9] <= 1);
    let text_len = |at: usize| usize::from(u16::from_be_bytes([frame[at], frame[at + 1]]));
    assert!(text_len(26) > 0);
    assert_eq!(frame.len(), 30 + text_len(26) + text_len(28));
}

#[test]
fn timer_info_describes_the_timer_thread_in_the_order_asked() {
    let mut port = port(&[]);
    send(
        &mut port,
        &[
            Request::Now { id: 1 },
            Request::TimerInfo { id: 2 },
            Request::Now { id: 3 },
        ],
    );
    let got = answers(&port, 3);
    assert!(matches!(got[0], Answer::Clock { id: 1, .. }), "{got:?}");
    assert!(matches!(got[2], Answer::Clock { id: 3, .. }), "{got:?}");
    let Answer::Timer { id: 2, timer } = &got[1] else {
        panic!("expected the timer, got {:?}", got[1]);
    };
    assert!(!timer.mechanism.is_empty());
    if cfg!(target_os = "linux") {
        assert!(timer.mechanism.starts_with("futex"), "{timer:?}");
        // The port cut its timer thread's slack to 1 ns, and is not real-time here.
        assert_eq!(timer.timer_slack_ns, Some(1), "{timer:?}");
        assert_eq!(
            timer.high_resolution,
            timer.resolution_ns.is_some_and(|ns| ns <= 1_000),
            "{timer:?}"
        );
    }
    // And it carries on serving wakes.
    send(
        &mut port,
        &[Request::WakeAfter {
            id: 4,
            duration_ns: 1_000,
            spin_ns: 0,
        }],
    );
    assert!(matches!(
        answers(&port, 1)[..],
        [Answer::Woke { id: 4, .. }]
    ));
}
