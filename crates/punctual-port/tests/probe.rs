//! The probe's requests through real pipes: a PROBE leaves the port serving wakes while
//! it times, and VERDICT and CHEAT_SHEET answer with the library's arithmetic.

mod common;

use common::protocol2::{answers, port, send, woke};
use punctual_port::protocol2::wire::{Answer, Cost, Costs, Reason, Request};

#[test]
fn wakes_are_served_while_a_probe_times() {
    let mut port = port(&[]);
    send(
        &mut port,
        &[
            Request::Probe { id: 1, samples: 1 },
            Request::Probe { id: 2, samples: 1 },
            Request::WakeAfter {
                id: 3,
                duration_ns: 1_000_000,
                spin_ns: 0,
            },
        ],
    );
    // The probe sleeps some hundreds of ms; the wake, one.
    let got = answers(&port, 3);
    assert_eq!(
        got[0],
        Answer::Error {
            reason: Reason::ProbeBusy,
            id: Some(2)
        }
    );
    assert_eq!(woke(&got[1]).0, 3);
    let Answer::Probed { id: 1, probe } = &got[2] else {
        panic!("expected the probe, got {:?}", got[2]);
    };
    assert_eq!(probe.costs.len(), 8);
    assert!(!probe.primitive.is_empty());
}

#[test]
fn a_verdict_and_a_cheat_sheet_answer_in_the_order_asked() {
    let mut port = port(&[]);
    let tick = 15_625_000;
    let costs = [1, 5, 10, 20]
        .map(|ms: u32| Cost {
            request_ms: ms,
            mean_ns: tick * (u64::from(ms) * 1_000_000).div_ceil(tick),
        })
        .to_vec();
    send(
        &mut port,
        &[
            Request::Verdict {
                id: 1,
                costs: Costs {
                    floor_ns: tick,
                    costs,
                },
            },
            Request::CheatSheet {
                id: 2,
                quantum_ns: tick,
                bands: 2,
            },
            Request::Probe { id: 3, samples: 0 },
        ],
    );
    let got = answers(&port, 3);
    let Answer::Probed { id: 1, probe } = &got[0] else {
        panic!("{got:?}");
    };
    assert_eq!(probe.quantum_ns, Some(tick));
    let Answer::Sheet { id: 2, bands } = &got[1] else {
        panic!("{got:?}");
    };
    assert_eq!(
        bands.iter().map(|b| b.request_ms).collect::<Vec<_>>(),
        [8, 23]
    );
    assert_eq!(
        got[2],
        Answer::Error {
            reason: Reason::OutOfRange,
            id: Some(3)
        }
    );
}
