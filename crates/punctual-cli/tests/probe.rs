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
            &["probe", "--method", "sleepy"][..],
            "unknown method `sleepy`",
        ),
        (&["probe", "--method", "os"][..], "name one method"),
        (&["probe", "--method", "native,std"][..], "name one method"),
        (
            &["probe", "--method", OTHER_OS_METHOD][..],
            "this program was built for",
        ),
        (
            &["probe", "--time-per-request", "soon"][..],
            "not a duration",
        ),
    ] {
        assert_usage_error(args, message);
    }
}

/// A method of another OS than the one the tests run on.
const OTHER_OS_METHOD: &str = if cfg!(target_os = "linux") {
    "sleep-ms"
} else {
    "timerfd"
};

/// The real probe times the OS's plain sleep and says which; `--method` swaps in another.
#[test]
fn the_real_probe_names_the_plain_os_sleep_or_the_method_asked() {
    let findings = |extra: &[&str]| -> serde_json::Value {
        let args = [&["probe", "--json", "--time-per-request", "1ms"][..], extra].concat();
        serde_json::from_str(&stdout_of(&args)).unwrap()
    };
    let plain = if cfg!(windows) {
        "Win32 Sleep()"
    } else if cfg!(target_os = "linux") {
        "nanosleep() at the default timer slack"
    } else {
        "nanosleep()"
    };
    let json = findings(&[]);
    assert_eq!(json["sleep"], plain);
    assert_eq!(json["requests"].as_array().unwrap().len(), 11);
    let json = findings(&["--method", "spin"]);
    assert!(
        json["sleep"].as_str().unwrap().starts_with("`spin` ("),
        "{json}"
    );
    // A busy wait on the probe's own clock is never short of its request.
    for request in json["requests"].as_array().unwrap() {
        let request_ns = request["request_ns"].as_u64().unwrap();
        assert!(request["back_to_back"]["min_ns"].as_u64().unwrap() >= request_ns);
    }
}
