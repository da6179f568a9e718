//! `bench --report FILE.html` and `punctual report`: the page of a mock run (a snapshot),
//! the same page from the run's JSON export, two exports compared, and clear errors for a
//! page that cannot be written or an export that is not one. scripts/check-report renders
//! the pages in Chromium and validates them with tidy.

mod common;
use std::path::Path;

use common::{assert_fails_before_measuring, assert_usage_error, punctual, run, TempDir};
use serde_json::Value;

const MOCK_BENCH: [&str; 6] = [
    "bench",
    "--mock-timer",
    "--samples",
    "300",
    "--wait",
    "100us,1ms",
];

/// Runs punctual in `dir` (so that the command the page shows has no temporary path in it)
/// and returns its standard output; fails on a non-zero exit.
fn in_dir(dir: &Path, args: &[&str]) -> String {
    let output = run(punctual().current_dir(dir).args(args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// The page with each plot's drawing (plotters' own output, checked in Chromium by
/// scripts/check-report) replaced by what it holds.
fn without_drawings(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg ") {
        let open_end = start + rest[start..].find('>').unwrap() + 1;
        let close = start + rest[start..].find("</svg>").unwrap();
        let drawing = &rest[open_end..close];
        let count = |tag: &str| drawing.matches(tag).count();
        out.push_str(&rest[..open_end]);
        out.push_str(&format!(
            "[drawing: {} polylines, {} paths, {} circles, {} texts]",
            count("<polyline"),
            count("<path"),
            count("<circle"),
            count("<text")
        ));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

#[test]
fn page_of_a_mock_run() {
    let dir = TempDir::new("report-page");
    let stdout = in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--report", "run.html"]].concat(),
    );
    assert!(stdout.ends_with("report: run.html\n"), "{stdout}");
    let html = read(&dir.0, "run.html");
    assert_eq!(html.matches("<svg ").count(), 2, "one plot per wait");
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
        "bench",
        "--mock-timer",
        "--frontier",
        "--samples",
        "300",
        "--wait",
        "100us,1ms",
    ];
    let args = [
        &args[..],
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
    assert_eq!(html.matches("<svg ").count(), 2, "one plot per wait");
    insta::assert_snapshot!("report_frontier_page", without_drawings(&html));
}

/// Two exports, the second with `std`'s p99 at 1 ms doubled and `hybrid`'s CPU halved: the
/// comparison marks those two, and only those, and shows both environments.
#[test]
fn comparison_marks_what_differs() {
    let dir = TempDir::new("report-compare");
    in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--export-json", "a.json"]].concat(),
    );
    let mut b: Value = serde_json::from_str(&read(&dir.0, "a.json")).unwrap();
    for result in b["results"].as_array_mut().unwrap() {
        let at_1ms = result["wait_ns"] == 1_000_000;
        if at_1ms && result["method"] == "std" {
            result["p99_ns"] = (result["p99_ns"].as_u64().unwrap() * 2).into();
        }
        if at_1ms && result["method"] == "hybrid" {
            result["cpu_ns_per_wait"] = (result["cpu_ns_per_wait"].as_u64().unwrap() / 2).into();
        }
    }
    b["environment"]["kernel"] = "2.0 mock".into();
    std::fs::write(dir.0.join("b.json"), serde_json::to_string(&b).unwrap()).unwrap();
    in_dir(
        &dir.0,
        &["report", "a.json", "b.json", "-o", "compare.html"],
    );
    let html = read(&dir.0, "compare.html");
    assert_eq!(
        html.matches("<td class=\"worse\">2.00x worse</td>").count(),
        1,
        "std's p99"
    );
    assert_eq!(
        html.matches("<td class=\"better\">0.50x better</td>")
            .count(),
        1,
        "hybrid's CPU"
    );
    assert_eq!(html.matches("<td class=\"worse\"").count(), 1);
    assert_eq!(html.matches("<td class=\"better\"").count(), 1);
    assert!(html.contains("<td>1.0 mock</td><td class=\"differs\">2.0 mock</td>"));
    assert_eq!(html.matches("<svg ").count(), 4, "A and B at each wait");
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
    assert!(!html.contains("<svg "));
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
    let frontier = [
        "bench",
        "--mock-timer",
        "--frontier",
        "--samples",
        "20",
        "--wait",
        "1ms",
    ];
    assert_fails_before_measuring(
        &[&frontier[..], &["--report", page]].concat(),
        1,
        &format!("writing the report to {page}"),
    );
    assert_usage_error(
        &[&MOCK_BENCH[..], &["--report", "r.svg"]].concat(),
        "give a name ending in .html",
    );
    for mode in [["--scale", "1"], ["--threads", "2"]] {
        assert_usage_error(
            &[
                &["bench", "--mock-timer"][..],
                &mode,
                &["--report", "r.html"],
            ]
            .concat(),
            "cannot be used with",
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
    let cases = [
        (vec!["missing.json"], "reading missing.json"),
        (vec!["not.json"], "not.json is not JSON"),
        (
            vec!["other.json"],
            "other.json is not a `punctual bench --export-json` file",
        ),
        (vec!["scale.json"], "scale.json is a --scale run"),
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
