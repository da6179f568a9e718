//! `--format timetest`: the table of Windows' timetest.exe (its Sleep, waitable timer and
//! QPC busy-wait tests), so that its users can put the two outputs side by side. Each wait's block gives, per method, the MIN, AVG and MAX time
//! a wait took and its MAX OVER (the worst time past the nominal wait), all in ticks of the
//! clock the bench times with, whose frequency the first line names:
//!
//! ```text
//! QPC Timer is 10000000 Hz, 100 ns tick
//! ### TEST OF 50 x 100 ms wait routine runs
//! QPC ticks                         MIN         AVG         MAX    MAX OVER
//! sleep-ms                      1000568     1007637     1017800       17800
//! ```
//!
//! A wait's time is the wait plus its lateness, read off the same clock at the same points
//! as the bench's other outputs (timetest reads QPC around each call; so does the bench in
//! single mode, where each deadline is the wait after the previous wake).

use std::fmt::Write as _;
use std::time::Duration;

use crate::bench::Report;
use crate::units::wait_label;

/// Nanoseconds (a wait plus a lateness, possibly negative) in ticks of `hz`, rounded down
/// as a tick counter reads.
fn ticks(ns: i128, hz: u64) -> i128 {
    (ns * i128::from(hz)).div_euclid(1_000_000_000)
}

pub fn render(report: &Report) -> String {
    let clock = &report.environment.instant_clock;
    let tick_ns = 1e9 / clock.hz.max(1) as f64;
    let tick = if tick_ns.fract() == 0.0 {
        format!("{tick_ns} ns")
    } else {
        format!("{tick_ns:.1} ns")
    };
    let mut out = format!("{} Timer is {} Hz, {tick} tick\n", clock.name, clock.hz);
    let mut waits: Vec<u64> = report.results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    for wait_ns in waits {
        let rows: Vec<_> = report
            .results
            .iter()
            .filter(|r| r.wait_ns == wait_ns)
            .collect();
        let samples = rows
            .iter()
            .map(|r| r.summary.lateness.samples)
            .max()
            .unwrap_or(0);
        let label = wait_label(Duration::from_nanos(wait_ns));
        let unit = label
            .find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(label.len());
        let wait = format!("{} {}", &label[..unit], &label[unit..]);
        let _ = writeln!(out, "### TEST OF {samples} x {wait} wait routine runs");
        let _ = writeln!(
            out,
            "{:<25}{:>12}{:>12}{:>12}{:>12}",
            format!("{} ticks", clock.name),
            "MIN",
            "AVG",
            "MAX",
            "MAX OVER"
        );
        let wait = i128::from(wait_ns);
        for r in rows {
            let late = &r.summary.lateness;
            let in_ticks = |late_ns: i128| ticks(wait + late_ns, clock.hz);
            let _ = writeln!(
                out,
                "{:<25}{:>12}{:>12}{:>12}{:>12}",
                r.method,
                in_ticks(late.min_ns.into()),
                in_ticks(late.mean_ns.into()),
                in_ticks(late.max_ns.into()),
                ticks(late.max_ns.into(), clock.hz)
            );
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::ticks;

    #[test]
    fn nanoseconds_become_whole_ticks_rounded_down() {
        assert_eq!(ticks(100_000_000, 10_000_000), 1_000_000);
        assert_eq!(ticks(199, 10_000_000), 1);
        assert_eq!(ticks(-1, 10_000_000), -1);
        assert_eq!(ticks(1_000_000_017, 1_000_000_000), 1_000_000_017);
        assert_eq!(ticks(1_000, 24_000_000), 24);
    }
}
