//! `punctual probe` end to end, on the mock timer: a Windows-like 15.625 ms quantum and a
//! high-resolution timer.

mod common;
use common::{assert_usage_error, stdout_of};

fn probe(extra: &[&str]) -> String {
    stdout_of(
        &[
            &["probe", "--mock-timer", "--time-per-request", "50ms"][..],
            extra,
        ]
        .concat(),
    )
}

#[test]
fn a_quantised_sleep_gets_its_quantum_and_cheat_sheet() {
    insta::assert_snapshot!("probe_quantised", probe(&["--mock-quantum", "15.625ms"]));
}

#[test]
fn a_high_resolution_sleep_is_not_quantised() {
    insta::assert_snapshot!("probe_high_resolution", probe(&[]));
}

#[test]
fn json_reports_the_quantum_and_mid_band_requests() {
    let json: serde_json::Value =
        serde_json::from_str(&probe(&["--mock-quantum", "15.625ms", "--json"])).unwrap();
    let quantum = json["quantum_ns"].as_u64().unwrap();
    assert!((15_500_000..=15_700_000).contains(&quantum), "{quantum}");
    let sheet: Vec<u64> = json["cheat_sheet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["request_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(sheet, [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]);
    assert_eq!(json["requests"].as_array().unwrap().len(), 11);
    assert!(json["ruler"]["coarse"]["step_ns"].as_u64().unwrap() >= 15_000_000);

    let flat: serde_json::Value = serde_json::from_str(&probe(&["--json"])).unwrap();
    assert!(flat["quantum_ns"].is_null());
    assert!(flat["overshoot_ns"].as_u64().unwrap() > 0);
}

#[test]
fn bad_arguments_are_clear_errors() {
    for (args, message) in [
        (&["probe", "--mock-quantum", "15ms"][..], "--mock-timer"),
        (&["probe", "--time-per-request", "0s"][..], "zero"),
        (
            &["probe", "--time-per-request", "soon"][..],
            "not a duration",
        ),
    ] {
        assert_usage_error(args, message);
    }
}
