//! `punctual scale --workload server` end to end: the table and JSON export on the mock
//! timer (snapshots), the flags it refuses, and a short real run checked for what always
//! holds (never early, counts that add up), never for timing.

mod common;

use common::{assert_fails_before_measuring, assert_usage_error, stdout_of};

/// A small server workload on the mock timer.
fn mock_server(extra: &[&str]) -> String {
    let args = [
        "scale",
        "--workload",
        "server",
        "--mock-timer",
        "--pending",
        "1000",
        "--churn",
        "1000",
        "--duration",
        "1s",
    ];
    stdout_of(&[&args[..], extra].concat())
}

#[test]
fn server_table() {
    insta::assert_snapshot!("server_table", mock_server(&[]));
}

#[test]
fn server_json() {
    insta::assert_snapshot!("server_json", mock_server(&["--export-json", "-"]));
}

/// Every timeout registered ends one way, and the mock registers all the schedule makes.
#[test]
fn server_json_counts_add_up() {
    let json: serde_json::Value =
        serde_json::from_str(&mock_server(&["--export-json", "-"])).unwrap();
    assert_eq!(json["run"]["mode"], "server");
    let rows = json["results"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["async", "tokio", "async-mt", "async-mtw", "tokio-mt"]
    );
    for row in rows {
        assert_counts_add_up(row, 1000 + 1000);
        assert_eq!(row["not_registered"], 0, "{row}");
    }
}

fn assert_counts_add_up(row: &serde_json::Value, scheduled: u64) {
    let n = |field: &str| {
        row[field]
            .as_u64()
            .unwrap_or_else(|| panic!("{field} in {row}"))
    };
    assert_eq!(
        n("fired") + n("cancelled") + n("left_pending"),
        n("registered"),
        "{row}"
    );
    assert_eq!(n("registered") + n("not_registered"), scheduled, "{row}");
    assert!(n("cancel_too_late") <= n("fired"), "{row}");
    assert!(n("samples") <= n("fired"), "{row}");
}

#[test]
fn methods_without_a_server_part_are_refused() {
    assert_usage_error(
        &[
            "scale",
            "--workload",
            "server",
            "--mock-timer",
            "--methods",
            "async-spin",
        ],
        "`async-spin` has no server workload",
    );
}

#[test]
fn each_workload_refuses_the_other_s_flags() {
    assert_usage_error(
        &["scale", "--workload", "server", "--mock-timer", "1000"],
        "--workload server takes no N,...",
    );
    assert_usage_error(
        &[
            "scale",
            "--workload",
            "server",
            "--mock-timer",
            "--export-csv",
            "-",
        ],
        "--export-csv is for the fire workload",
    );
    assert_usage_error(
        &["scale", "10", "--mock-timer", "--pending", "5"],
        "--pending is for --workload server",
    );
    assert_usage_error(&["scale", "--mock-timer"], "the fire workload needs N,...");
}

/// The hidden worker sides are `punctual scale`'s own, one per workload, so that no
/// deprecated `bench` flag starts them.
#[test]
fn each_worker_measures_its_own_workload() {
    assert_fails_before_measuring(
        &["scale", "--fire-worker", "async"],
        1,
        "a fire worker measures one N",
    );
    assert_fails_before_measuring(
        &[
            "scale",
            "10",
            "--fire-worker",
            "async",
            "--workload",
            "server",
        ],
        1,
        "--fire-worker needs the fire workload",
    );
    assert_fails_before_measuring(
        &["scale", "--server-worker", "async"],
        1,
        "--server-worker needs --workload server",
    );
    assert_fails_before_measuring(
        &[
            "scale",
            "--workload",
            "server",
            "--server-worker",
            "async-spin",
        ],
        1,
        "no server workload for `async-spin`",
    );
    assert_usage_error(
        &["bench", "--scale", "10", "--scale-worker", "async"],
        "unexpected argument '--scale-worker'",
    );
}

#[test]
fn a_run_too_large_to_hold_is_refused_before_measuring() {
    assert_usage_error(
        &[
            "scale",
            "--workload",
            "server",
            "--mock-timer",
            "--churn",
            "10000000",
            "--duration",
            "3600s",
        ],
        "make 36001000000 timeouts: at most 100000000",
    );
}

/// A short real run of every method, each in a worker process of its own: our timeouts
/// never fire early, every registered timeout ended one way, and the schedule's counts
/// are those of the plan.
#[test]
fn a_real_server_run_adds_up_and_is_never_early() {
    let out = stdout_of(&[
        "scale",
        "--workload",
        "server",
        "--pending",
        "10000",
        "--churn",
        "10000",
        "--duration",
        "1s",
        "--export-json",
        "-",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = json["results"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for row in rows {
        assert_counts_add_up(row, 10_000 + 10_000);
        assert!(row["timer_bytes"].as_u64().unwrap() > 0, "{row}");
        if row["ours"] == true {
            assert_eq!(row["early"], 0, "{row}");
            assert!(row["min_ns"].as_i64().unwrap() >= 0, "{row}");
        } else {
            assert!(row["driver_cpu_ns_per_timer"].is_null(), "{row}");
        }
    }
}
