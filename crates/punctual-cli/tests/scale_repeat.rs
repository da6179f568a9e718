//! `punctual scale --repeat K`, both workloads, on the mock timer: the table and exports
//! (snapshots), and what holds of any run of rounds: each row keeps its K rounds, each
//! interval holds its figure, the paired lines come with rounds only, and one round prints
//! what a run without the flag prints.

mod common;

use common::{assert_usage_error, stdout_of};

const FIRE: [&str; 4] = ["scale", "1,1000", "--mock-timer", "--repeat"];
const SERVER: [&str; 12] = [
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
    "--repeat",
    "3",
];

fn fire(repeat: &str, extra: &[&str]) -> String {
    stdout_of(&[&FIRE[..], &[repeat], extra].concat())
}

fn server(extra: &[&str]) -> String {
    stdout_of(&[&SERVER[..], extra].concat())
}

fn rows(json: &str, key: &str) -> Vec<serde_json::Value> {
    let json: serde_json::Value = serde_json::from_str(json).unwrap();
    json[key].as_array().unwrap().clone()
}

#[test]
fn scale_repeat_table() {
    insta::assert_snapshot!("scale_repeat_table", fire("3", &[]));
}

#[test]
fn scale_repeat_exports() {
    insta::assert_snapshot!("scale_repeat_json", fire("3", &["--export-json", "-"]));
    insta::assert_snapshot!("scale_repeat_csv", fire("3", &["--export-csv", "-"]));
    let markdown = fire("3", &["--export-markdown", "-"]);
    assert!(
        markdown.contains("| 1000 | **async** | 3000 | "),
        "{markdown}"
    );
    assert!(markdown.contains("\\* 3 rounds cannot make an interval 95% sure"));
    insta::assert_snapshot!("scale_repeat_markdown", markdown);
}

#[test]
fn server_repeat_table() {
    insta::assert_snapshot!("server_repeat_table", server(&[]));
}

#[test]
fn server_repeat_json() {
    insta::assert_snapshot!("server_repeat_json", server(&["--export-json", "-"]));
}

/// Every row of either workload has its 3 rounds, counts that add up over them, and each
/// interval around its figure at the confidence asked.
#[test]
fn every_row_keeps_its_rounds_and_bounds_its_figures() {
    let fire_rows = rows(&fire("3", &["--export-json", "-"]), "scale");
    let server_rows = rows(&server(&["--export-json", "-"]), "results");
    for row in fire_rows.iter().chain(&server_rows) {
        let repeats = row["repeats"].as_array().unwrap();
        assert_eq!(repeats.len(), 3, "{row}");
        let samples: u64 = repeats.iter().map(|r| r["samples"].as_u64().unwrap()).sum();
        assert_eq!(Some(samples), row["samples"].as_u64());
        let over = &row["over_rounds"];
        assert_eq!(over["rounds"], 3);
        for figure in [
            "p50_ns",
            "p99_ns",
            "p999_ns",
            "cpu_ns_per_timer",
            "timer_bytes",
        ] {
            let b = &over[figure];
            let (value, low, high) = (
                b["value"].as_f64().unwrap(),
                b["low"].as_f64().unwrap(),
                b["high"].as_f64().unwrap(),
            );
            assert!(low <= value && value <= high, "{figure}: {b}");
            assert_eq!(b["confidence"], 0.95);
            // 3 rounds cannot make an interval 95% sure.
            assert!(b["reach"].as_f64().unwrap() < 0.95);
        }
        let driver = &over["driver_cpu_ns_per_timer"];
        assert_eq!(driver.is_null(), row["ours"] == false, "{row}");
    }
}

/// With rounds, each of ours is set against tokio from the rounds they shared, and a
/// confidence asked is the one the intervals carry.
#[test]
fn rounds_pair_ours_with_tokio() {
    let table = fire("3", &["--confidence", "80"]);
    assert!(
        table.contains("async/tokio at 1000 timers: p50 "),
        "{table}"
    );
    assert!(table.contains("async/tokio at 1 timer: "), "{table}");
    assert!(table.contains("[its 80% confidence interval]"), "{table}");
    let table = server(&[]);
    assert!(table.contains("async-mt/tokio-mt on the multi-thread runtime: p50 "));
}

/// `--repeat 1` is a run as it always was: the same table and exports (but for the
/// command line the JSON records), no rounds, no paired lines.
#[test]
fn one_round_is_a_run_without_rounds() {
    let plain =
        |extra: &[&str]| stdout_of(&[&["scale", "1,1000", "--mock-timer"][..], extra].concat());
    for extra in [&[][..], &["--export-csv", "-"], &["--export-markdown", "-"]] {
        assert_eq!(fire("1", extra), plain(extra));
    }
    let json = ["--export-json", "-"];
    let without_command = |text: &str| {
        let mut json: serde_json::Value = serde_json::from_str(text).unwrap();
        json["command"] = serde_json::Value::Null;
        json
    };
    let once = plain(&json);
    assert_eq!(without_command(&fire("1", &json)), without_command(&once));
    assert!(!once.contains("repeats") && !once.contains("/tokio"));
}

#[test]
fn timer_rows_take_one_round() {
    assert_usage_error(
        &[&FIRE[..], &["2", "--export-timers", "t.csv"]].concat(),
        "--export-timers takes a run of one round",
    );
}
