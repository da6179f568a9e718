//! What the tests of the HTML pages share: making pages of mock runs, and reading a page's
//! tables and hover texts back.

use std::path::Path;

use super::{punctual, run};

pub const MOCK_BENCH: [&str; 6] = [
    "bench",
    "--mock-timer",
    "--samples",
    "300",
    "--wait",
    "100us,1ms",
];

pub const MOCK_FRONTIER: [&str; 7] = [
    "bench",
    "--mock-timer",
    "--frontier",
    "--samples",
    "300",
    "--wait",
    "100us,1ms",
];

pub const MOCK_THREADS: [&str; 8] = [
    "bench",
    "--mock-timer",
    "--threads",
    "4",
    "--wait-range",
    "100us..2ms",
    "--duration",
    "2s",
];

pub const MOCK_SCALE: [&str; 6] = [
    "bench",
    "--mock-timer",
    "--scale",
    "1,1000",
    "--samples",
    "100",
];

/// Runs punctual in `dir` (so that the command the page shows has no temporary path in it)
/// and returns its standard output; fails on a non-zero exit.
pub fn in_dir(dir: &Path, args: &[&str]) -> String {
    let output = run(punctual().current_dir(dir).args(args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// The page with each plot's drawing (plotters' own output, checked in Chromium by
/// scripts/check-report) replaced by what it holds.
pub fn without_drawings(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg ") {
        let open_end = start + rest[start..].find('>').unwrap() + 1;
        let close = start + rest[start..].find("</svg>").unwrap();
        let drawing = &rest[open_end..close];
        let count = |tag: &str| drawing.matches(tag).count();
        out.push_str(&rest[..open_end]);
        out.push_str(&format!(
            "[drawing: {} polylines, {} paths, {} circles, {} texts, {} titled]",
            count("<polyline"),
            count("<path"),
            count("<circle"),
            count("<text"),
            count("<title>")
        ));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Asserts that each of `rows` (an export's results, points or scale rows) has its p99
/// among its `lateness_percentiles`: the table's p99 is the plot's.
pub fn assert_p99_among_percentiles(rows: &serde_json::Value) {
    for row in rows.as_array().unwrap() {
        let points = row["lateness_percentiles"].as_array().unwrap();
        let p99 = points.iter().find(|p| p["percentile"] == 99.0).unwrap();
        assert_eq!(
            p99["lateness_ns"], row["p99_ns"],
            "the table's p99 is the plot's: {row}"
        );
    }
}

/// Each wait's section of a page.
pub fn wait_sections(html: &str) -> Vec<&str> {
    html.split("<section class=\"wait\"")
        .skip(1)
        .map(|s| &s[..s.find("</section>").unwrap()])
        .collect()
}

/// The hover texts of the plots in `html`.
pub fn titles(html: &str) -> Vec<String> {
    let mut titles = Vec::new();
    for drawing in html.split("<svg ").skip(1) {
        let drawing = &drawing[..drawing.find("</svg>").unwrap()];
        for title in drawing.split("<title>").skip(1) {
            titles.push(title[..title.find("</title>").unwrap()].to_string());
        }
    }
    titles
}

/// The body rows of each table of `class` in `html`, as the cells' texts.
pub fn table_rows(html: &str, class: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for table in html.split(&format!("<table class=\"{class}\">")).skip(1) {
        let body = &table[table.find("<tbody>").unwrap()..table.find("</table>").unwrap()];
        for row in body.split("<tr").skip(1) {
            let cells = row
                .split("<td")
                .skip(1)
                .map(|cell| {
                    let text = &cell[cell.find('>').unwrap() + 1..];
                    text[..text.find("</td>").unwrap()].to_string()
                })
                .collect();
            rows.push(cells);
        }
    }
    rows
}
