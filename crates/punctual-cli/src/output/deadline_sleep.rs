//! `--format deadline-sleep` (and `--preset deadline-sleep`): the C++ `deadline_sleep`
//! project's exercise, whose `main` sleeps 5 times at each of 50, 20, 10, 5 and 1 ms, 500,
//! 100 and 1 µs, in that order, and prints each sleep's error. Here each wait's block gives,
//! per method, the median and the worst error of its sleeps, how many ended early, and the
//! CPU each took:
//!
//! ```text
//! deadline_sleep exercise: 5 sleeps at each wait, in this order, each method's sleeper fresh at the start
//!   wait    method          median error   worst error   early   cpu/wait
//!   50ms    std                  262 µs        574 µs       0    31.0 µs
//! ```
//!
//! The error is the lateness every output of the bench shows: the bench's clock read once
//! the method has returned, minus the deadline, as the exercise's caller reads it.

use std::fmt::Write as _;
use std::time::Duration;

use crate::bench::Report;
use crate::units::{format_nanos, wait_label};

pub fn render(report: &Report) -> String {
    let samples = report
        .results
        .iter()
        .map(|r| r.summary.lateness.samples)
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "deadline_sleep exercise: {samples} sleeps at each wait, in this order, each method's sleeper fresh at the start\n"
    );
    let _ = writeln!(
        out,
        "  {:<8}{:<14}{:>14}{:>14}{:>8}{:>11}",
        "wait", "method", "median error", "worst error", "early", "cpu/wait"
    );
    let mut previous = None;
    for r in &report.results {
        let late = &r.summary.lateness;
        let wait =
            (previous != Some(r.wait_ns)).then(|| wait_label(Duration::from_nanos(r.wait_ns)));
        previous = Some(r.wait_ns);
        let _ = writeln!(
            out,
            "  {:<8}{:<14}{:>14}{:>14}{:>8}{:>11}",
            wait.unwrap_or_default(),
            r.method,
            format_nanos(late.p50_ns as f64),
            format_nanos(late.max_ns as f64),
            late.early,
            format_nanos(r.summary.cpu_ns_per_wait as f64),
        );
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}
