//! The page of a run of rounds draws each interval its export holds as an error bar, and a
//! run of one round, which holds none, draws none: a wait table's p50, p99 and CPU per
//! wait, a scale run's, a threads run's, and a frontier run's adaptive methods.

mod common;
use common::pages::{in_dir, read, MOCK_BENCH};
use common::TempDir;
use serde_json::Value;

/// The page (`--report`) and the JSON export of `args` with `--repeat repeat`, made in a
/// directory of their own; the page `punctual report` makes of the export is the same.
fn page_and_export(args: &[&str], repeat: &str) -> (String, Value) {
    let dir = TempDir::new("report-intervals");
    let outputs = ["--report", "run.html", "--export-json", "run.json"];
    in_dir(&dir.0, &[args, &["--repeat", repeat], &outputs].concat());
    in_dir(&dir.0, &["report", "run.json", "-o", "again.html"]);
    let html = read(&dir.0, "run.html");
    assert_eq!(html, read(&dir.0, "again.html"));
    (
        html,
        serde_json::from_str(&read(&dir.0, "run.json")).unwrap(),
    )
}

fn error_bars(html: &str) -> usize {
    html.matches("<g class=\"error-bar\">").count()
}

/// The bars a row's bounds make: p50 and p99 on the rounds plot, p99 and CPU on the tail
/// plot; `cpu` names the row's CPU figure.
fn bars_of(row: &Value, cpu: &str) -> usize {
    let over = &row["over_rounds"];
    let has = |figure: &str| usize::from(!over[figure].is_null());
    has("p50_ns") + 2 * has("p99_ns") + has(cpu)
}

#[test]
fn a_wait_tables_bounds_are_error_bars() {
    let bench = [
        "bench",
        "--mock-timer",
        "--samples",
        "300",
        "--wait",
        "100us,1ms",
    ];
    assert_eq!(bench[..], MOCK_BENCH[..]);
    let (html, export) = page_and_export(&bench, "3");
    let rows = export["results"].as_array().unwrap();
    let expected: usize = rows.iter().map(|r| bars_of(r, "cpu_ns_per_wait")).sum();
    assert_eq!(expected, 4 * rows.len(), "every row has all four");
    assert_eq!(error_bars(&html), expected);
    assert_eq!(
        html.matches("<h3>Over the rounds</h3>").count(),
        2,
        "one per wait"
    );
    let (html, export) = page_and_export(&bench, "1");
    assert!(export["results"][0]["over_rounds"].is_null());
    assert_eq!(error_bars(&html), 0);
    assert!(!html.contains("Over the rounds"));
}

#[test]
fn a_scale_runs_bounds_are_error_bars() {
    let scale = ["scale", "1,1000", "--mock-timer"];
    let (html, export) = page_and_export(&scale, "3");
    let rows = export["scale"].as_array().unwrap();
    let expected: usize = rows.iter().map(|r| bars_of(r, "cpu_ns_per_timer")).sum();
    assert_eq!(expected, 4 * rows.len());
    assert_eq!(error_bars(&html), expected);
    let (html, _) = page_and_export(&scale, "1");
    assert_eq!(error_bars(&html), 0);
}

/// Only the adaptive methods have bars: the fixed margins and spin_sleep's settings are the
/// frontier's sweeps, which the fit, not a bar, bounds.
#[test]
fn a_frontiers_adaptive_methods_have_error_bars() {
    let frontier = [
        "frontier",
        "--mock-timer",
        "--samples",
        "300",
        "--wait",
        "100us,1ms",
    ];
    let (html, export) = page_and_export(&frontier, "3");
    let adaptive = export["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["family"] == "hybrid" || p["family"] == "async-spin")
        .count();
    assert!(adaptive > 0);
    assert_eq!(error_bars(&html), 4 * adaptive);
    for bar in html.split("<g class=\"error-bar\"><title>").skip(1) {
        assert!(
            bar.starts_with("hybrid") || bar.starts_with("async-spin"),
            "{}",
            &bar[..40]
        );
    }
    // Placed as the table places them: against the fit, not the pooled waits' envelope.
    assert_eq!(
        html.matches(" fit there (").count(),
        4,
        "two methods at two waits"
    );
    assert!(!html.contains("the frontier&#39;s p99 of"));
    let (html, _) = page_and_export(&frontier, "1");
    assert_eq!(error_bars(&html), 0);
    assert!(html.contains("the frontier&#39;s p99 of") && !html.contains(" fit there ("));
}

/// A threads run's rows have all four bars: since each round reads the crews' CPU, CPU per
/// sleep has its interval as the percentiles do.
#[test]
fn a_threads_runs_bounds_are_error_bars() {
    let threads = [
        "threads",
        "4",
        "--mock-timer",
        "--wait-range",
        "100us..2ms",
        "--duration",
        "1s",
    ];
    let (html, export) = page_and_export(&threads, "3");
    let rows = export["results"].as_array().unwrap();
    let expected: usize = rows.iter().map(|r| bars_of(r, "cpu_ns_per_wait")).sum();
    assert_eq!(expected, 4 * rows.len(), "every row has all four");
    assert_eq!(error_bars(&html), expected);
}
