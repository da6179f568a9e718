//! `punctual frontier` and `punctual threads` end to end, with the mock timer so every run
//! prints the same thing.

mod common;
use common::{assert_fails_before_measuring, assert_usage_error, stdout_of, TempDir};

/// One round: the envelope of one run, as before `--repeat` (the default's six rounds are
/// `frontier_repeat`'s).
fn mock_frontier(extra: &[&str]) -> String {
    let base = [
        "frontier",
        "--repeat",
        "1",
        "--mock-timer",
        "--samples",
        "300",
        "--wait",
        "100us,1ms",
    ];
    stdout_of(&[&base[..], extra].concat())
}

/// The default: six rounds, the fewest a 95% interval can be read from.
#[test]
fn frontier_repeat() {
    let base = [
        "frontier",
        "--mock-timer",
        "--samples",
        "300",
        "--wait",
        "100us,1ms",
    ];
    let table = stdout_of(&base);
    assert!(
        table.contains("samples per contender and round, 6 rounds"),
        "{table}"
    );
    let fits = table
        .lines()
        .filter(|l| l.contains(" the fixed margins' fit there ("))
        .count();
    assert_eq!(fits, 4, "hybrid and async-spin at both waits: {table}");
    // The fit leads; the envelope of the pooled waits would be a second verdict.
    assert!(!table.contains("x the frontier"), "{table}");
    let rows = rows_with_intervals(&table);
    assert_eq!(
        rows.len(),
        31,
        "15 contenders at 100us, 16 at 1ms:\n{table}"
    );
    for line in rows {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(
        table.contains("rank correlation"),
        "the sweep_order sentence stays"
    );
    assert!(!table.contains("rounds cannot make"), "6 rounds reach 95%");
    insta::assert_snapshot!("frontier_repeat_table", table);
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&[&base[..], &["--export-json", "-"]].concat())).unwrap();
    for p in json["placements"].as_array().unwrap() {
        let fit = &p["fit"];
        assert!(
            ["on", "above", "below", "cannot-tell"].contains(&fit["side"].as_str().unwrap()),
            "{fit}"
        );
        let ratio = &fit["p99_to_fit"];
        let (low, value, high) = bounds(ratio);
        assert!(low <= value && value <= high, "{ratio}");
    }
    for p in json["points"].as_array().unwrap() {
        assert_eq!(p["rounds"].as_array().unwrap().len(), 6);
        let over = &p["over_rounds"];
        assert_eq!(over["rounds"], 6, "{p}");
        for figure in ["p50_ns", "p99_ns", "p999_ns", "cpu_ns_per_wait"] {
            let (low, value, high) = bounds(&over[figure]);
            assert!(low <= value && value <= high, "{figure}: {over}");
        }
    }
}

/// The rows of a table of rounds: those with an interval in them, ending in the early
/// wakes' count.
fn rows_with_intervals(table: &str) -> Vec<&str> {
    table
        .lines()
        .filter(|l| l.contains(" [") && l.ends_with(" 0") && !l.contains(": "))
        .collect()
}

/// A bounded figure's `low`, `value` and `high`, each required: a missing bound fails
/// here rather than compare as `None <= None`.
fn bounds(figure: &serde_json::Value) -> (f64, f64, f64) {
    let field = |name: &str| {
        figure[name]
            .as_f64()
            .unwrap_or_else(|| panic!("no number `{name}` in {figure}"))
    };
    (field("low"), field("value"), field("high"))
}

fn mock_threads(extra: &[&str]) -> String {
    let base = [
        "threads",
        "4",
        "--mock-timer",
        "--wait-range",
        "100us..2ms",
        "--duration",
        "2s",
    ];
    stdout_of(&[&base[..], extra].concat())
}

#[test]
fn frontier_table() {
    insta::assert_snapshot!("frontier_table", mock_frontier(&[]));
}

#[test]
fn frontier_json() {
    insta::assert_snapshot!("frontier_json", mock_frontier(&["--export-json", "-"]));
}

/// What holds of any frontier run: every contender at every wait, the sweeps in order of
/// their setting, never an early wake by the caller's reading, and a placement for each
/// adaptive method whose ratio is its p99 over the frontier's.
#[test]
fn frontier_json_has_every_contender_and_placement() {
    let json: serde_json::Value =
        serde_json::from_str(&mock_frontier(&["--export-json", "-"])).unwrap();
    assert_eq!(json["run"]["mode"], "frontier");
    let points = json["points"].as_array().unwrap();
    for wait in [100_000, 1_000_000] {
        let here: Vec<&serde_json::Value> =
            points.iter().filter(|p| p["wait_ns"] == wait).collect();
        for family in ["fixed-margin", "spin-sleep"] {
            let settings: Vec<u64> = here
                .iter()
                .filter(|p| p["family"] == family)
                .map(|p| p["setting_ns"].as_u64().unwrap())
                .collect();
            assert!(settings.len() >= 4, "{family} at {wait}: {settings:?}");
            assert!(settings.windows(2).all(|w| w[0] < w[1]), "{settings:?}");
        }
        assert_eq!(
            settings_of(&here, "fixed-margin")[0],
            0,
            "margin 0 is native"
        );
        let defaults = here.iter().filter(|p| p["default"] == true).count();
        assert_eq!(defaults, 1, "spin_sleep's default, once");
        for family in ["hybrid", "async-spin"] {
            assert_eq!(here.iter().filter(|p| p["family"] == family).count(), 1);
        }
        assert!(here.iter().all(|p| p["samples"] == 300 && p["early"] == 0));
    }
    let placements = json["placements"].as_array().unwrap();
    assert_eq!(placements.len(), 4, "hybrid and async-spin at both waits");
    for p in placements {
        let (p99, frontier) = (
            p["p99_ns"].as_f64().unwrap(),
            p["frontier_p99_ns"].as_f64().unwrap(),
        );
        let ratio = p["p99_to_frontier"].as_f64().unwrap();
        assert!((ratio - p99 / frontier).abs() < 1e-9, "{p}");
        assert!(p["spin_sleep_default_p99_ns"].is_u64(), "{p}");
    }
}

fn settings_of(points: &[&serde_json::Value], family: &str) -> Vec<u64> {
    points
        .iter()
        .filter(|p| p["family"] == family)
        .map(|p| p["setting_ns"].as_u64().unwrap())
        .collect()
}

#[test]
fn frontier_plot_shows_both_sweeps_and_the_adaptive_points() {
    let dir = TempDir::new("frontier-plot");
    let svg = dir.0.join("f.svg");
    let table = mock_frontier(&["--plot", svg.to_str().unwrap()]);
    assert!(table.contains("plot: "), "{table}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"));
    for label in [
        "wait 100us",
        "wait 1ms",
        "the frontier",
        "spin_sleep, by native accuracy",
        "hybrid: p99",
        "async-spin: p99",
        "(default)",
    ] {
        assert!(plot.contains(label), "the plot shows `{label}`");
    }
}

/// `--repeat 3`: each method's p50, p99 and CPU per sleep over the rounds with their
/// intervals in the table's cells, short of 95% and footnoted so; the exports carry each
/// round, its CPU too.
#[test]
fn threads_repeat() {
    let table = mock_threads(&["--repeat", "3"]);
    assert!(table.contains("per method and round, 3 rounds"), "{table}");
    let rows = rows_with_intervals(&table);
    assert_eq!(rows.len(), 3, "a row per method:\n{table}");
    for line in rows {
        assert_eq!(line.matches("]*").count(), 3, "p50, p99 and CPU: {line}");
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(table.contains("* 3 rounds cannot make an interval 95% sure"));
    insta::assert_snapshot!("threads_repeat_table", table);
    let json: serde_json::Value =
        serde_json::from_str(&mock_threads(&["--repeat", "3", "--export-json", "-"])).unwrap();
    for r in json["results"].as_array().unwrap() {
        assert_eq!(r["rounds"].as_array().unwrap().len(), 3, "{r}");
        for figure in ["p99_ns", "cpu_ns_per_wait"] {
            let (low, value, high) = bounds(&r["over_rounds"][figure]);
            assert!(low <= value && value <= high, "{figure}: {r}");
            assert!(value > 0.0, "{figure}: {r}");
        }
        for round in r["rounds"].as_array().unwrap() {
            assert!(round["cpu_ns_per_wait"].as_u64().unwrap() > 0, "{round}");
        }
    }
}

#[test]
fn threads_table() {
    insta::assert_snapshot!("threads_table", mock_threads(&[]));
}

#[test]
fn threads_json() {
    insta::assert_snapshot!("threads_json", mock_threads(&["--export-json", "-"]));
}

/// Every method's crew ran, its sleeps add up over its threads, and the cap counts are
/// there for the hybrid (and only for methods that learn a margin).
#[test]
fn threads_json_counts_every_sleep() {
    let json: serde_json::Value = serde_json::from_str(&mock_threads(&[
        "--methods",
        "native,hybrid,std",
        "--export-json",
        "-",
    ]))
    .unwrap();
    assert_eq!(json["run"]["threads"], 4);
    let results = json["results"].as_array().unwrap();
    let methods: Vec<&str> = results
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["native", "hybrid", "std"]);
    for r in results {
        let sleeps = r["samples"].as_u64().unwrap();
        // 4 threads, 2 s of waits of 100 us to 2 ms each: at least 4 * 2 s / 2.4 ms.
        assert!(sleeps >= 4 * 2_000 / 3, "{r}");
        assert_eq!(r["early"], 0, "{r}");
        assert!(r["cores"].as_f64().unwrap() > 0.0, "{r}");
        let learns = r["method"] == "hybrid";
        assert_eq!(r["capped"].is_u64(), learns, "{r}");
        if learns {
            assert!(r["capped"].as_u64().unwrap() <= sleeps);
        }
    }
}

/// A real run, small: the threads sleep at once and every sleep is counted, none early.
#[test]
fn a_real_threads_run_completes_sleeps_on_every_thread() {
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "bench",
        "--threads",
        "3",
        "--wait-range",
        "100us..300us",
        "--duration",
        "200ms",
        "--methods",
        "native,hybrid",
        "--export-json",
        "-",
    ]))
    .unwrap();
    for r in json["results"].as_array().unwrap() {
        assert!(r["samples"].as_u64().unwrap() >= 3, "{r}");
        assert_eq!(r["early"], 0, "{r}");
    }
}

/// A real frontier run, small: every contender measured, none early by the caller's clock.
#[test]
fn a_real_frontier_run_measures_every_contender() {
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "bench",
        "--frontier",
        "--wait",
        "200us",
        "--samples",
        "20",
        "--warmup",
        "2",
        "--export-json",
        "-",
    ]))
    .unwrap();
    let points = json["points"].as_array().unwrap();
    assert!(points.len() >= 10);
    for p in points {
        assert_eq!(p["samples"], 20, "{p}");
        assert_eq!(p["early"], 0, "{p}");
    }
}

#[test]
fn bad_frontier_and_threads_arguments_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--frontier", "--methods", "hybrid"],
            "cannot be used with",
        ),
        (&["--frontier", "--duration", "1s"], "cannot be used with"),
        (&["--frontier", "--mode", "grid"], "cannot be used with"),
        (&["--frontier", "--scale", "10"], "cannot be used with"),
        (&["--frontier", "--export-csv", "-"], "cannot be used with"),
        (
            &["--frontier", "--export-markdown", "-"],
            "cannot be used with",
        ),
        (&["--frontier", "--plot", "f.png"], "ending in .svg"),
        (&["--frontier", "--threads", "4"], "cannot be used with"),
        (&["--threads", "0"], "0 is not in 1..=1024"),
        (&["--threads", "5000"], "not in 1..=1024"),
        (&["--threads", "-3"], "unexpected argument"),
        (&["--threads", "4", "--wait", "1ms"], "cannot be used with"),
        (
            &["--threads", "4", "--samples", "10"],
            "cannot be used with",
        ),
        (
            &["--threads", "4", "--plot", "t.svg"],
            "cannot be used with",
        ),
        (
            &["--threads", "4", "--wait-range", "2ms..100us"],
            "shortest wait comes first",
        ),
        (
            &["--threads", "4", "--wait-range", "1ms"],
            "not a range of waits",
        ),
        (&["--threads", "4", "--wait-range", "0ms..1ms"], "zero"),
        (
            &["--threads", "4", "--wait-range", "1ms..abc"],
            "not a duration",
        ),
        (&["--wait-range", "100us..2ms"], "--threads"),
        (
            &["--threads", "4", "--methods", "hybrid,async-rt"],
            "measured only in the scale mode",
        ),
    ];
    for (args, message) in cases {
        assert_usage_error(&[&["bench"][..], args].concat(), message);
    }
}

#[test]
fn an_unwritable_frontier_output_is_an_error_before_measuring() {
    for flag in ["--export-json", "--plot"] {
        // Named as the wait table's outputs are: the plot by what it is.
        let (path, what) = if flag == "--plot" {
            ("/nonexistent-dir/f.svg", "the plot to ")
        } else {
            ("/nonexistent-dir/f.json", "")
        };
        assert_fails_before_measuring(
            &["bench", "--frontier", "--mock-timer", flag, path],
            1,
            &format!("writing {what}{path}"),
        );
    }
    assert_fails_before_measuring(
        &[
            "bench",
            "--threads",
            "2",
            "--mock-timer",
            "--export-json",
            "/nonexistent-dir/t.json",
        ],
        1,
        "writing /nonexistent-dir/t.json",
    );
}
