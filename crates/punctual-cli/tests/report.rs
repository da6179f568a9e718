//! `bench --report FILE.html` and `punctual report`: the page of a mock run (a snapshot),
//! the same page from the run's JSON export, two exports compared, and clear errors for a
//! page that cannot be written or an export that is not one. scripts/check-report renders
//! the pages in Chromium and validates them with tidy.

mod common;
use common::pages::{
    assert_p99_among_percentiles, in_dir, read, table_rows, titles, wait_sections,
    without_drawings, MOCK_BENCH, MOCK_FRONTIER, MOCK_SCALE, MOCK_THREADS,
};
use common::{assert_fails_before_measuring, assert_usage_error, punctual, run, TempDir};
use serde_json::Value;

#[test]
fn page_of_a_mock_run() {
    let dir = TempDir::new("report-page");
    let stdout = in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--report", "run.html"]].concat(),
    );
    assert!(stdout.ends_with("report: run.html\n"), "{stdout}");
    let html = read(&dir.0, "run.html");
    assert_eq!(
        html.matches("<svg ").count(),
        4,
        "per wait, the distributions and CPU against tail"
    );
    assert!(!html.contains("<script"), "the page has no script");
    let own = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for asks in ["http", "src=", "url(", "<link", "@import"] {
        assert!(
            !own.contains(asks),
            "the page asks for nothing elsewhere: {asks}"
        );
    }
    insta::assert_snapshot!("report_page", without_drawings(&html));
}

#[test]
fn page_from_the_export_is_the_page_of_the_run() {
    let dir = TempDir::new("report-from-json");
    let args = [
        &MOCK_BENCH[..],
        &["--report", "run.html", "--export-json", "run.json"],
    ]
    .concat();
    in_dir(&dir.0, &args);
    in_dir(&dir.0, &["report", "run.json", "-o", "again.html"]);
    assert_eq!(read(&dir.0, "run.html"), read(&dir.0, "again.html"));
    let export: Value = serde_json::from_str(&read(&dir.0, "run.json")).unwrap();
    let command: Vec<&str> = export["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(command, [&["punctual"][..], &args].concat());
    for result in export["results"].as_array().unwrap() {
        let points = result["lateness_percentiles"].as_array().unwrap();
        let lateness: Vec<u64> = points
            .iter()
            .map(|p| p["lateness_ns"].as_u64().unwrap())
            .collect();
        assert!(
            lateness.windows(2).all(|w| w[0] <= w[1]),
            "{lateness:?} rises"
        );
        assert_eq!(points.last().unwrap()["percentile"], 100.0);
        let p99 = points.iter().find(|p| p["percentile"] == 99.0).unwrap();
        assert_eq!(
            p99["lateness_ns"], result["p99_ns"],
            "the table's p99 is the plot's"
        );
    }
}

#[test]
fn page_of_a_frontier_run() {
    let dir = TempDir::new("report-frontier");
    let args = [
        &MOCK_FRONTIER[..],
        &[
            "--report",
            "frontier.html",
            "--export-json",
            "frontier.json",
        ],
    ]
    .concat();
    in_dir(&dir.0, &args);
    in_dir(&dir.0, &["report", "frontier.json", "-o", "again.html"]);
    let html = read(&dir.0, "frontier.html");
    assert_eq!(html, read(&dir.0, "again.html"));
    assert_eq!(
        html.matches("<svg ").count(),
        4,
        "per wait, CPU against tail and the distributions"
    );
    let export: Value = serde_json::from_str(&read(&dir.0, "frontier.json")).unwrap();
    assert_p99_among_percentiles(&export["points"]);
    insta::assert_snapshot!("report_frontier_page", without_drawings(&html));
}

/// A threads run's page: one section of all its methods, with their distributions and
/// CPU per sleep against tail, the same page `punctual report` makes of its export.
#[test]
fn page_of_a_threads_run() {
    let dir = TempDir::new("report-threads");
    let args = [
        &MOCK_THREADS[..],
        &["--report", "threads.html", "--export-json", "threads.json"],
    ]
    .concat();
    let stdout = in_dir(&dir.0, &args);
    assert!(stdout.ends_with("report: threads.html\n"), "{stdout}");
    in_dir(&dir.0, &["report", "threads.json", "-o", "again.html"]);
    let html = read(&dir.0, "threads.html");
    assert_eq!(html, read(&dir.0, "again.html"));
    assert_eq!(html.matches("<svg ").count(), 2);
    let export: Value = serde_json::from_str(&read(&dir.0, "threads.json")).unwrap();
    assert_p99_among_percentiles(&export["results"]);
    insta::assert_snapshot!("report_threads_page", without_drawings(&html));
}

/// A scale run's page: a part per N, each with its methods' table, distributions and CPU
/// per timer against tail, the same page `punctual report` makes of its export.
#[test]
fn page_of_a_scale_run() {
    let dir = TempDir::new("report-scale");
    let args = [
        &MOCK_SCALE[..],
        &["--report", "scale.html", "--export-json", "scale.json"],
    ]
    .concat();
    let stdout = in_dir(&dir.0, &args);
    assert!(stdout.ends_with("report: scale.html\n"), "{stdout}");
    in_dir(&dir.0, &["report", "scale.json", "-o", "again.html"]);
    let html = read(&dir.0, "scale.html");
    assert_eq!(html, read(&dir.0, "again.html"));
    assert_eq!(html.matches("<svg ").count(), 4, "two plots per N");
    assert!(html.contains("<h2>1 timer pending at once</h2>"));
    assert!(html.contains("<h2>1000 timers pending at once</h2>"));
    let export: Value = serde_json::from_str(&read(&dir.0, "scale.json")).unwrap();
    assert_p99_among_percentiles(&export["scale"]);
    insta::assert_snapshot!("report_scale_page", without_drawings(&html));
}

/// Every method, or frontier contender, has its figures on hover on both plots of its
/// wait (the distribution's curve and its CPU/tail point), the same figures as its row in
/// the wait's table and in the table under the CPU/tail plot; nothing else is titled but a
/// frontier's two sweep lines of each kind.
#[test]
fn every_plotted_method_has_its_figures_on_hover_and_in_a_table() {
    let dir = TempDir::new("report-hover");
    in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--report", "bench.html"]].concat(),
    );
    in_dir(
        &dir.0,
        &[&MOCK_FRONTIER[..], &["--report", "frontier.html"]].concat(),
    );
    in_dir(
        &dir.0,
        &[&MOCK_THREADS[..], &["--report", "threads.html"]].concat(),
    );
    in_dir(
        &dir.0,
        &[&MOCK_SCALE[..], &["--report", "scale.html"]].concat(),
    );
    for (page, sections, methods, sweep_lines) in [
        ("bench.html", 2, 9, 0),
        ("frontier.html", 2, 15, 4),
        ("threads.html", 1, 3, 0),
        ("scale.html", 2, 4, 0),
    ] {
        let html = read(&dir.0, page);
        let sections_of = wait_sections(&html);
        assert_eq!(sections_of.len(), sections, "{page}");
        for section in sections_of {
            let rows = table_rows(section, "results");
            let titles = titles(section);
            assert!(rows.len() >= methods, "{page}: {} rows", rows.len());
            for row in &rows {
                let (name, p50, p99, p999, cpu) = (&row[0], &row[4], &row[6], &row[7], &row[10]);
                let hover =
                    format!("{name}: CPU per wait {cpu}, p50 {p50}, p99 {p99}, p99.9 {p999}");
                assert_eq!(
                    titles.iter().filter(|t| **t == hover).count(),
                    2,
                    "{page}: `{hover}` on the curve and on the point, in {titles:#?}"
                );
                assert!(
                    table_rows(section, "plotted").contains(&vec![
                        name.clone(),
                        cpu.clone(),
                        p50.clone(),
                        p99.clone(),
                        p999.clone()
                    ]),
                    "{page}: {name}'s figures in the table under the plot"
                );
            }
            assert_eq!(
                titles.len(),
                2 * rows.len() + sweep_lines,
                "{page}: {titles:#?}"
            );
        }
    }
}

/// A frontier or threads export from before the page drew their distributions still makes
/// a page: CPU against tail, and a note where the distributions would be.
#[test]
fn old_frontier_and_threads_exports_still_make_a_page() {
    let dir = TempDir::new("report-old-frontier");
    in_dir(
        &dir.0,
        &[&MOCK_FRONTIER[..], &["--export-json", "frontier.json"]].concat(),
    );
    in_dir(
        &dir.0,
        &[&MOCK_THREADS[..], &["--export-json", "threads.json"]].concat(),
    );
    for (export, rows, parts) in [("frontier", "points", 2), ("threads", "results", 1)] {
        let mut old: Value =
            serde_json::from_str(&read(&dir.0, &format!("{export}.json"))).unwrap();
        old.as_object_mut().unwrap().remove("command");
        for row in old[rows].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("lateness_percentiles");
        }
        std::fs::write(dir.0.join("old.json"), old.to_string()).unwrap();
        in_dir(&dir.0, &["report", "old.json", "-o", "old.html"]);
        let html = read(&dir.0, "old.html");
        assert_eq!(
            html.matches("holds no lateness distribution").count(),
            parts,
            "{export}"
        );
        assert_eq!(
            html.matches("<svg ").count(),
            parts,
            "{export}: CPU against tail"
        );
    }
}

#[test]
fn an_export_without_distributions_still_makes_a_page() {
    let dir = TempDir::new("report-old-export");
    in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--export-json", "new.json"]].concat(),
    );
    let mut old: Value = serde_json::from_str(&read(&dir.0, "new.json")).unwrap();
    old.as_object_mut().unwrap().remove("command");
    for result in old["results"].as_array_mut().unwrap() {
        result
            .as_object_mut()
            .unwrap()
            .remove("lateness_percentiles");
    }
    std::fs::write(dir.0.join("old.json"), old.to_string()).unwrap();
    in_dir(&dir.0, &["report", "old.json", "-o", "old.html"]);
    let html = read(&dir.0, "old.html");
    assert_eq!(html.matches("holds no lateness distribution").count(), 2);
    assert!(html.contains("(not recorded: the export was made before punctual kept it)"));
    assert_eq!(
        html.matches("<svg ").count(),
        2,
        "CPU against tail, per wait"
    );
}

#[test]
fn a_page_that_cannot_be_written_fails_before_measuring() {
    let dir = TempDir::new("report-checked");
    let page = dir.0.join("no-such-dir").join("r.html");
    let page = page.to_str().unwrap();
    assert_fails_before_measuring(
        &[&MOCK_BENCH[..], &["--report", page]].concat(),
        1,
        &format!("writing the report to {page}"),
    );
    assert_fails_before_measuring(
        &[&MOCK_FRONTIER[..], &["--report", page]].concat(),
        1,
        &format!("writing the report to {page}"),
    );
    assert_usage_error(
        &[&MOCK_BENCH[..], &["--report", "r.svg"]].concat(),
        "give a name ending in .html",
    );
    for mode in [&MOCK_THREADS[..], &MOCK_SCALE[..]] {
        assert_fails_before_measuring(
            &[mode, &["--report", page]].concat(),
            1,
            &format!("writing the report to {page}"),
        );
    }
    assert_usage_error(
        &[
            &MOCK_BENCH[..],
            &["--report", "same.html", "--export-json", "same.html"],
        ]
        .concat(),
        "--export-json and --report both write to same.html",
    );
}

/// Each bad input is an error that names it, exit code 1, and no page.
#[test]
fn report_errors_say_what_is_wrong() {
    let dir = TempDir::new("report-errors");
    std::fs::write(dir.0.join("not.json"), "{ not json").unwrap();
    std::fs::write(dir.0.join("other.json"), "{\"a\": 1}").unwrap();
    in_dir(
        &dir.0,
        &[
            "bench",
            "--mock-timer",
            "--scale",
            "1,10",
            "--samples",
            "10",
            "--export-json",
            "scale.json",
        ],
    );
    let mut empty: Value = serde_json::from_str(&read(&dir.0, "scale.json")).unwrap();
    empty["scale"] = Value::Array(Vec::new());
    std::fs::write(dir.0.join("empty.json"), empty.to_string()).unwrap();
    let cases = [
        (vec!["missing.json"], "reading missing.json"),
        (vec!["not.json"], "not.json is not JSON"),
        (
            vec!["other.json"],
            "other.json is not a punctual export (`--export-json`)",
        ),
        (
            vec!["empty.json"],
            "empty.json holds no results: nothing was measured",
        ),
    ];
    for (exports, message) in cases {
        let args = [&["report"][..], &exports, &["-o", "page.html"]].concat();
        let output = run(punctual().current_dir(&dir.0).args(&args));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(message),
            "{args:?}: {message:?} not in {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!dir.0.join("page.html").exists());
    }
    let output = run(punctual().current_dir(&dir.0).args([
        "report",
        "missing.json",
        "-o",
        "no-such-dir/p.html",
    ]));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("writing the report to no-such-dir/p.html"),
        "the page is checked first"
    );
    assert_usage_error(
        &["report", "a.json", "b.json", "c.json", "-o", "p.html"],
        "no more were expected",
    );
}

/// Every mode's export as an older punctual wrote it (tests/fixtures/exports-0, from before
/// `schema_version`) still makes a page, with its results in it.
#[test]
fn a_page_of_every_older_export() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/exports-0");
    let dir = TempDir::new("report-fixtures");
    for (name, mark) in [
        ("bench", "spin_sleep"),
        ("bench-grid", "hybrid"),
        ("frontier", "async-spin"),
        ("threads", "native"),
        ("scale", "tokio"),
    ] {
        let page = dir.0.join(format!("{name}.html"));
        let output = run(punctual()
            .arg("report")
            .arg(fixtures.join(format!("{name}.json")))
            .arg("-o")
            .arg(&page));
        assert!(output.status.success(), "{name}: {output:?}");
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(mark), "{name}: {html}");
    }
}
