//! The result lines: cyclictest's `T:` line (its `print_stat` widths, microseconds), and
//! punctual's `Q:` line beside it with the percentiles in nanoseconds and the missed periods.
//! The `Q:` line has a letter of its own so that scripts reading `T:` lines are not misled.

use std::fmt::Write;

use super::{GridReport, ThreadReport};

/// `T: 0 (13239) P:80 I:1000 C:   1000 Min:     10 Act:   13 Avg:   15 Max:     486`.
pub fn summary_line(thread: &ThreadReport, priority: i32, interval_us: u128) -> String {
    let s = &thread.stats;
    format!(
        "T:{:2} ({:5}) P:{:2} I:{} C:{:7} Min:{:7} Act:{:5} Avg:{:5} Max:{:8}",
        thread.index,
        thread.tid,
        priority,
        interval_us,
        s.cycles,
        s.min_us,
        s.act_us,
        // cyclictest casts its double average to long: truncation.
        s.avg_us() as u64,
        s.max_us
    )
}

/// `Q: 0 (13239) P50(ns):    14123 P99(ns):    25000 P99.9(ns):   480000 Missed:       0`.
pub fn quantile_line(thread: &ThreadReport) -> String {
    let q = thread.stats.percentiles();
    format!(
        "Q:{:2} ({:5}) P50(ns):{:9} P99(ns):{:9} P99.9(ns):{:9} Missed:{:7}",
        thread.index, thread.tid, q.p50_ns, q.p99_ns, q.p999_ns, thread.stats.missed
    )
}

/// Each thread's `T:` line followed by its `Q:` line.
pub fn render(report: &GridReport) -> String {
    let mut out = String::new();
    let priority = report.options.priority.unwrap_or(0);
    let interval_us = report.options.interval.as_micros();
    for thread in &report.threads {
        let _ = writeln!(out, "{}", summary_line(thread, priority, interval_us));
        let _ = writeln!(out, "{}", quantile_line(thread));
    }
    out
}
