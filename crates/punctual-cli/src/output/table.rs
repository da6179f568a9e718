//! The table `punctual bench` prints: the environment, then one block per wait length.

use std::fmt::Write;
use std::time::Duration;

use crate::bench::{MethodResult, Report, RunInfo, RunMode};
use crate::environment::Environment;
use crate::units::{format_duration, format_nanos, wait_label};

pub fn header(environment: &Environment) -> String {
    let mut out = String::new();
    for (label, value) in environment.lines() {
        let _ = writeln!(out, "  {label:<16} {value}");
    }
    out
}

/// The run line; `rounds` is `--repeat`'s K.
fn describe_run(run: &RunInfo, rounds: usize) -> String {
    let per = if rounds > 1 {
        format!("per method, wait and round, {rounds} rounds")
    } else {
        "per method and wait".to_string()
    };
    let size = match (run.samples_per_method, run.duration_per_method_ns) {
        (Some(n), _) => format!("{n} samples {per}"),
        (None, Some(ns)) => format!("{} {per}", format_duration(Duration::from_nanos(ns))),
        (None, None) => String::new(),
    };
    let load = match run.load_threads {
        0 => "no load".to_string(),
        n => format!("{n} load threads at {} priority", run.load.name()),
    };
    format!(
        "{} mode, {} phase, {load}, {size}, {} warm-up waits",
        match run.mode {
            RunMode::Single => "single",
            RunMode::Grid => "grid",
            RunMode::Scale => "scale",
            RunMode::Frontier => "frontier",
            RunMode::Threads => "threads",
            RunMode::Server => "server",
        },
        match run.phase {
            crate::bench::Phase::Aligned => "aligned",
            crate::bench::Phase::Scrambled => "scrambled",
        },
        run.warmup
    )
}

/// A result row's values, formatted for people; the table and the Markdown export lay them out.
pub struct Cells {
    pub samples: String,
    /// min, mean, p50, p90, p99, p99.9, max.
    pub lateness: [String; 7],
    pub early: String,
    pub missed: String,
    pub cpu_per_wait: String,
    pub cpu_share: String,
}

pub fn cells(r: &MethodResult) -> Cells {
    let s = &r.summary;
    let f = |ns: f64| {
        if s.lateness.samples == 0 {
            "-".to_string()
        } else {
            format_nanos(ns)
        }
    };
    Cells {
        samples: s.lateness.samples.to_string(),
        lateness: [
            f(s.lateness.min_ns as f64),
            f(s.lateness.mean_ns as f64),
            f(s.lateness.p50_ns as f64),
            f(s.lateness.p90_ns as f64),
            f(s.lateness.p99_ns as f64),
            f(s.lateness.p999_ns as f64),
            f(s.lateness.max_ns as f64),
        ],
        early: s.lateness.early.to_string(),
        missed: s.missed.to_string(),
        cpu_per_wait: f(s.cpu_ns_per_wait as f64),
        cpu_share: cpu_share_label(r.cpu_share),
    }
}

/// A wait's CPU time as a share of the wait; past the whole wait `>100%`, since a figure of
/// thousands of percent says only that a wake cost more than the wait (see
/// [`OVER_THE_WAIT`]).
pub fn cpu_share_label(share: f64) -> String {
    if share > 1.0 {
        ">100%".to_string()
    } else {
        format!("{:.1}%", share * 100.0)
    }
}

/// What `>100%` means, said once under a table that has it.
pub const OVER_THE_WAIT: &str =
    ">100%: a wake cost more CPU than the wait itself (its cpu/wait is the figure to read)";

/// Whether some row of `report` prints `>100%`.
pub fn any_over_the_wait(report: &Report) -> bool {
    report.results.iter().any(|r| r.cpu_share > 1.0)
}

pub fn render(report: &Report) -> String {
    render_with(report, &[])
}

/// The table with `comparisons` (the paired lines of `--compare`) above the advice.
pub fn render_with(report: &Report, comparisons: &[String]) -> String {
    let mut out =
        String::from("punctual bench: how late each way to wait wakes, on this machine\n");
    out.push_str(&header(&report.environment));
    if report.run.mode == RunMode::Scale {
        out.push_str(&super::scale::render(report));
        return out;
    }
    let rounds = report
        .results
        .iter()
        .map(|r| r.rounds.len())
        .max()
        .unwrap_or(0);
    let _ = writeln!(out, "  {:<16} {}", "run", describe_run(&report.run, rounds));
    let grid = report.run.mode == RunMode::Grid;
    let mut waits: Vec<u64> = report.results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    for wait in waits {
        let rows: Vec<_> = report
            .results
            .iter()
            .filter(|r| r.wait_ns == wait)
            .collect();
        let _ = writeln!(
            out,
            "\nwait {}: lateness past the deadline (lower is better)",
            wait_label(Duration::from_nanos(wait))
        );
        // Wide enough for the longest name and its `*` (`sleep-ms-period1`), 12 at least.
        let width = rows
            .iter()
            .map(|r| r.method.len() + if r.ours { 2 } else { 0 })
            .max()
            .unwrap_or(0)
            .max(12);
        let name = |r: &MethodResult| {
            if r.ours {
                format!("{} *", r.method)
            } else {
                r.method.clone()
            }
        };
        if rows.iter().any(|r| r.over_rounds.is_some()) {
            let names: Vec<String> = rows.iter().map(|r| name(r)).collect();
            super::rounds_table::block(&mut out, &rows, &names, width);
        } else {
            pooled_block(&mut out, &rows, width, grid, name);
        }
        notes_of(&mut out, &rows);
    }
    out.push_str("\n  * punctual's own methods. Lateness is the bench's clock reading once the method has returned, for every method; early wakes count as 0 in the percentiles; cpu is CPU time per wait, and its share of the wait.\n");
    if let Some(confidence) = report
        .results
        .iter()
        .find_map(|r| r.over_rounds?.p99_ns.map(|b| b.confidence))
    {
        let _ = writeln!(out, "  {}", super::rounds_table::legend(confidence));
    }
    if let Some((rounds, interval)) = super::rounds_table::short_interval(&report.results) {
        if let Some(note) = crate::intervals::format::reach_note(rounds, &interval) {
            let _ = writeln!(out, "  {note}.");
        }
    }
    if any_over_the_wait(report) {
        let _ = writeln!(out, "  {OVER_THE_WAIT}.");
    }
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    if !comparisons.is_empty() {
        out.push('\n');
        for line in comparisons {
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(advice) = &report.recommendation {
        let _ = writeln!(out, "\nRecommendation: {advice}");
    }
    out
}

/// A block of a run of one round: every figure over its waits.
fn pooled_block(
    out: &mut String,
    rows: &[&MethodResult],
    width: usize,
    grid: bool,
    name: impl Fn(&MethodResult) -> String,
) {
    let _ = write!(
        out,
        "  {:<width$} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6}",
        "method", "samples", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "early"
    );
    if grid {
        let _ = write!(out, " {:>7}", "missed");
    }
    let _ = writeln!(out, " {:>10} {:>7}", "cpu/wait", "cpu");
    for r in rows {
        let name = name(r);
        let cells = cells(r);
        let _ = write!(out, "  {name:<width$} {:>7}", cells.samples);
        for value in &cells.lateness {
            let _ = write!(out, " {value:>9}");
        }
        let _ = write!(out, " {:>6}", cells.early);
        if grid {
            let _ = write!(out, " {:>7}", cells.missed);
        }
        let _ = writeln!(out, " {:>10} {:>7}", cells.cpu_per_wait, cells.cpu_share);
    }
}

/// The methods' notes and own wake readings under a block.
fn notes_of(out: &mut String, rows: &[&MethodResult]) {
    for r in rows {
        if let Some(note) = &r.note {
            let _ = writeln!(out, "  {note}");
        }
    }
    for r in rows {
        let s = &r.summary;
        if let (Some(p50), Some(p99)) = (s.self_reported_p50_ns, s.self_reported_p99_ns) {
            let _ = writeln!(
                out,
                "  {}: by its own wake reading, before returning: p50 {}, p99 {}",
                r.method,
                format_nanos(p50 as f64),
                format_nanos(p99 as f64)
            );
        }
    }
}
