//! `punctual report a.json b.json`: two exports side by side, of the wait table, of a
//! `--frontier`, a `--threads` and a `--scale` run, with what differs marked.

mod common;
use common::pages::{
    in_dir, read, titles, wait_sections, MOCK_BENCH, MOCK_FRONTIER, MOCK_SCALE, MOCK_THREADS,
};
use common::TempDir;
use serde_json::Value;

/// The comparison page of a mock run (`mock`, exported as A) and of B: A with `change` made
/// to each of its rows (`results`, `points` or `scale`) and another kernel.
fn compared(name: &str, mock: &[&str], rows: &str, change: impl Fn(&mut Value)) -> String {
    compared_with(name, mock, rows, change, &[])
}

/// [`compared`], with `options` given to `punctual report`.
fn compared_with(
    name: &str,
    mock: &[&str],
    rows: &str,
    change: impl Fn(&mut Value),
    options: &[&str],
) -> String {
    let dir = TempDir::new(name);
    in_dir(&dir.0, &[mock, &["--export-json", "a.json"]].concat());
    let mut b: Value = serde_json::from_str(&read(&dir.0, "a.json")).unwrap();
    b[rows].as_array_mut().unwrap().iter_mut().for_each(change);
    b["environment"]["kernel"] = "2.0 mock".into();
    std::fs::write(dir.0.join("b.json"), serde_json::to_string(&b).unwrap()).unwrap();
    in_dir(
        &dir.0,
        &[
            &["report", "a.json", "b.json", "-o", "compare.html"][..],
            options,
        ]
        .concat(),
    );
    read(&dir.0, "compare.html")
}

fn scaled(row: &mut Value, field: &str, by: f64) {
    row[field] = ((row[field].as_u64().unwrap() as f64 * by) as u64).into();
}

/// The ratio cells marked worse and better.
fn marked(html: &str) -> (Vec<&str>, Vec<&str>) {
    let cells = |class: &str| {
        html.split(&format!("<td class=\"{class}\">"))
            .skip(1)
            .map(|c| &c[..c.find("</td>").unwrap()])
            .collect::<Vec<_>>()
    };
    (cells("worse"), cells("better"))
}

/// Two exports, the second with `std`'s p99 at 1 ms doubled and `hybrid`'s CPU halved: the
/// comparison marks those two, and only those, shows both environments, and draws both
/// plots of each.
#[test]
fn comparison_marks_what_differs() {
    let html = compared("report-compare", &MOCK_BENCH, "results", |result| {
        let at_1ms = result["wait_ns"] == 1_000_000;
        if at_1ms && result["method"] == "std" {
            scaled(result, "p99_ns", 2.0);
        }
        if at_1ms && result["method"] == "hybrid" {
            scaled(result, "cpu_ns_per_wait", 0.5);
        }
    });
    assert_eq!(marked(&html), (vec!["2.00x worse"], vec!["0.50x better"]));
    assert!(html.contains("<td>1.0 mock</td><td class=\"differs\">2.0 mock</td>"));
    assert_eq!(
        html.matches("<svg ").count(),
        8,
        "A and B at each wait, each with its distributions and CPU against tail"
    );
    let at_1ms = wait_sections(&html)[1];
    let (a, b) = at_1ms.split_at(at_1ms.find("<h3>B</h3>").unwrap());
    let hybrid = |side: &str| {
        titles(side)
            .into_iter()
            .filter(|t| t.starts_with("hybrid *: "))
            .collect::<Vec<_>>()
    };
    assert_eq!(hybrid(a).len(), 2);
    assert_eq!(hybrid(b).len(), 2);
    assert_ne!(hybrid(a), hybrid(b), "B's hover gives B's CPU");
}

/// Two frontier runs, the second with the hybrid's p99.9 at 100 us tripled: marked, once,
/// and each side has its distributions and its frontier plot.
#[test]
fn frontier_comparison_marks_what_differs() {
    let html = compared(
        "report-compare-frontier",
        &MOCK_FRONTIER,
        "points",
        |point| {
            if point["wait_ns"] == 100_000 && point["family"] == "hybrid" {
                scaled(point, "p999_ns", 3.0);
            }
        },
    );
    assert_eq!(marked(&html), (vec!["3.00x worse"], vec![]));
    assert_eq!(html.matches("<svg ").count(), 8);
    assert_eq!(html.matches("<h3>CPU against tail</h3>").count(), 4);
    assert_eq!(html.matches("<h3>Lateness distribution</h3>").count(), 4);
}

/// Two threads runs, the second with the hybrid's p50 halved: marked, once, with each
/// side's distributions and CPU per sleep against tail.
#[test]
fn threads_comparison_marks_what_differs() {
    let html = compared(
        "report-compare-threads",
        &MOCK_THREADS,
        "results",
        |result| {
            if result["method"] == "hybrid" {
                scaled(result, "p50_ns", 0.5);
            }
        },
    );
    assert_eq!(marked(&html), (vec![], vec!["0.50x better"]));
    assert_eq!(wait_sections(&html).len(), 1, "one section for the threads");
    assert_eq!(html.matches("<svg ").count(), 4);
    assert!(html.contains("<h2>4 threads per method at once, waits from 100us to 2ms</h2>"));
}

/// Two scale runs, the second with tokio's CPU per timer at 1000 timers doubled: marked,
/// once, with both plots of each side at each N.
#[test]
fn scale_comparison_marks_what_differs() {
    let html = compared("report-compare-scale", &MOCK_SCALE, "scale", |result| {
        if result["timers"] == 1000 && result["method"] == "tokio" {
            scaled(result, "cpu_ns_per_timer", 2.0);
        }
    });
    assert_eq!(marked(&html), (vec!["2.00x worse"], vec![]));
    assert_eq!(wait_sections(&html).len(), 2, "a section per N");
    assert_eq!(html.matches("<svg ").count(), 8);
}

/// A frontier run and a wait table are not compared: the error says why, and no page.
#[test]
fn runs_of_different_kinds_are_not_compared() {
    let dir = TempDir::new("report-compare-kinds");
    in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--export-json", "table.json"]].concat(),
    );
    in_dir(
        &dir.0,
        &[&MOCK_FRONTIER[..], &["--export-json", "frontier.json"]].concat(),
    );
    let output = common::run(common::punctual().current_dir(&dir.0).args([
        "report",
        "table.json",
        "frontier.json",
        "-o",
        "p.html",
    ]));
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("are different kinds of run"));
    assert!(!dir.0.join("p.html").exists());
}

/// Both runs with rounds: a figure is marked only where the permutation test of the rounds
/// shows a difference. B's `std` p50 at 1 ms doubled in every round is worse (at 95%: the
/// runs' rounds do not overlap, p = 2/252); its p99 doubled is not, since one of the mock's
/// five rounds has a p99 four times the others', above B's doubled ones, and the test cannot
/// tell the runs apart; the figures B shares with A are not marked.
#[test]
fn runs_with_rounds_are_marked_by_a_permutation_test() {
    let mock = [&MOCK_BENCH[..], &["--repeat", "5"]].concat();
    let html = compared("report-compare-rounds", &mock, "results", |result| {
        if result["wait_ns"] == 1_000_000 && result["method"] == "std" {
            for round in result["rounds"].as_array_mut().unwrap() {
                scaled(round, "p50_ns", 2.0);
                scaled(round, "p99_ns", 2.0);
            }
        }
    });
    assert_eq!(marked(&html), (vec!["2.0x, p = 0.00794 (worse)"], vec![]));
    let no_difference: Vec<&str> = html
        .split("<td>2.0x, p = ")
        .skip(1)
        .map(|c| &c[..c.find("</td>").unwrap()])
        .collect();
    assert_eq!(no_difference, ["0.103 (no difference shown)"]);
    assert!(html.contains("permutation test"));
    assert!(html.contains("shows a difference at 95%"));
    // The same runs at 80%: p = 0.103 is enough.
    let html = compared_with(
        "report-compare-rounds-80",
        &mock,
        "results",
        |result| {
            if result["wait_ns"] == 1_000_000 && result["method"] == "std" {
                for round in result["rounds"].as_array_mut().unwrap() {
                    scaled(round, "p50_ns", 2.0);
                    scaled(round, "p99_ns", 2.0);
                }
            }
        },
        &["--confidence", "80"],
    );
    assert_eq!(
        marked(&html),
        (
            vec!["2.0x, p = 0.00794 (worse)", "2.0x, p = 0.103 (worse)"],
            vec![]
        )
    );
    assert!(html.contains("shows a difference at 80%"));
}

/// A threads run of 5 rounds on the mock timer, for the tests of threads rounds below.
const THREADS_WITH_ROUNDS: [&str; 9] = [
    "threads",
    "4",
    "--mock-timer",
    "--wait-range",
    "100us..2ms",
    "--duration",
    "1s",
    "--repeat",
    "5",
];

/// Two threads runs of 5 rounds: B's hybrid with each round's p50 halved and its CPU per
/// sleep doubled is marked better and worse by the permutation test of the rounds (which
/// the page used to ignore for threads, judging by the pooled figures), and nothing else.
#[test]
fn threads_runs_with_rounds_are_marked_by_a_permutation_test() {
    let html = compared(
        "report-compare-threads-rounds",
        &THREADS_WITH_ROUNDS,
        "results",
        |result| {
            if result["method"] == "hybrid" {
                for round in result["rounds"].as_array_mut().unwrap() {
                    scaled(round, "p50_ns", 0.5);
                    scaled(round, "cpu_ns_per_wait", 2.0);
                }
            }
        },
    );
    let (worse, better) = marked(&html);
    assert_eq!(worse.len(), 1, "{worse:?}");
    assert!(worse[0].starts_with("2.0x, p = ") && worse[0].ends_with("(worse)"));
    assert_eq!(better.len(), 1, "{better:?}");
    assert!(better[0].starts_with("0.50x, p = ") && better[0].ends_with("(better)"));
}

/// A threads export from before each round read the crews' CPU (rounds with 0 there): its
/// lateness is still tested on the rounds, its CPU compared by the pooled figure.
#[test]
fn threads_rounds_without_cpu_compare_cpu_by_the_pooled_figure() {
    let dir = TempDir::new("report-compare-threads-old");
    in_dir(
        &dir.0,
        &[&THREADS_WITH_ROUNDS[..], &["--export-json", "a.json"]].concat(),
    );
    let mut a: Value = serde_json::from_str(&read(&dir.0, "a.json")).unwrap();
    for result in a["results"].as_array_mut().unwrap() {
        for round in result["rounds"].as_array_mut().unwrap() {
            round["cpu_ns_per_wait"] = 0.into();
        }
        result["over_rounds"]["cpu_ns_per_wait"] = Value::Null;
    }
    let mut b = a.clone();
    for result in b["results"].as_array_mut().unwrap() {
        if result["method"] == "hybrid" {
            let cores = result["thread_cores"].as_f64().unwrap();
            result["thread_cores"] = (cores * 2.0).into();
        }
    }
    for (name, export) in [("a.json", &a), ("b.json", &b)] {
        std::fs::write(dir.0.join(name), serde_json::to_string(export).unwrap()).unwrap();
    }
    in_dir(
        &dir.0,
        &["report", "a.json", "b.json", "-o", "compare.html"],
    );
    let html = read(&dir.0, "compare.html");
    assert_eq!(marked(&html), (vec!["2.00x worse"], vec![]));
    assert!(
        html.contains("(no difference shown)"),
        "lateness on the rounds"
    );
}

/// Two scale runs of 5 rounds (a round a process per method and N): B's tokio at 1000
/// timers with each round's p99 and CPU per timer doubled is marked worse on both by the
/// permutation test (the page used to judge a scale run by its pooled figures alone).
#[test]
fn scale_runs_with_rounds_are_marked_by_a_permutation_test() {
    let mock = [
        "scale",
        "1,1000",
        "--mock-timer",
        "--samples",
        "100",
        "--repeat",
        "5",
    ];
    let html = compared("report-compare-scale-rounds", &mock, "scale", |result| {
        if result["timers"] == 1000 && result["method"] == "tokio" {
            for round in result["repeats"].as_array_mut().unwrap() {
                scaled(round, "p99_ns", 2.0);
                scaled(round, "cpu_ns_per_timer", 2.0);
            }
        }
    });
    let (worse, better) = marked(&html);
    assert_eq!(worse.len(), 2, "{worse:?}");
    assert!(worse
        .iter()
        .all(|w| w.starts_with("2.0x, p = ") && w.ends_with("(worse)")));
    assert!(better.is_empty(), "{better:?}");
    assert!(
        html.contains("(no difference shown)"),
        "the figures B shares with A"
    );
}

/// `--confidence` is for two exports: with one, the page's intervals are its run's.
#[test]
fn confidence_needs_two_exports() {
    let dir = TempDir::new("report-confidence-one");
    in_dir(
        &dir.0,
        &[&MOCK_BENCH[..], &["--export-json", "a.json"]].concat(),
    );
    let output = common::run(common::punctual().current_dir(&dir.0).args([
        "report",
        "a.json",
        "-o",
        "p.html",
        "--confidence",
        "90",
    ]));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("--confidence is for comparing two exports"));
    assert!(!dir.0.join("p.html").exists());
}
