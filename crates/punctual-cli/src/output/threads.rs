//! The threads run's table: one row per method.

use std::fmt::Write;
use std::time::Duration;

use super::table::header;
use crate::bench::threads::{ThreadsReport, ThreadsResult};
use crate::intervals::figure::Figure;
use crate::intervals::format;
use crate::units::{format_duration, format_nanos, wait_label};

fn describe_run(report: &ThreadsReport) -> String {
    let run = &report.run;
    let load = match run.load_threads {
        0 => "no load".to_string(),
        n => format!("{n} load threads at {} priority", run.load.name()),
    };
    let per = match report.results.iter().map(|r| r.rounds.len()).max() {
        Some(k) if k > 1 => format!("per method and round, {k} rounds"),
        _ => "per method".to_string(),
    };
    format!(
        "threads, {} per method at once, waits drawn uniformly from {}..{}, {} {per}, {load}",
        run.threads,
        wait_label(Duration::from_nanos(run.wait_min_ns)),
        wait_label(Duration::from_nanos(run.wait_max_ns)),
        format_duration(Duration::from_nanos(run.duration_per_method_ns)),
    )
}

fn share(part: Option<u64>, of: u64) -> String {
    match part {
        Some(n) => format!("{n} ({:.1}%)", 100.0 * n as f64 / of.max(1) as f64),
        None => "-".to_string(),
    }
}

fn row(out: &mut String, r: &ThreadsResult) {
    let l = &r.lateness;
    let name = if r.ours {
        format!("{} *", r.method)
    } else {
        r.method.clone()
    };
    let f = |ns: u64| format_nanos(ns as f64);
    let _ = writeln!(
        out,
        "  {name:<12} {:>9} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>6} {:>16} {:>16}",
        l.samples,
        format!(
            "{:.0}",
            l.samples as f64 / (r.wall_ns as f64 / 1e9).max(1e-9)
        ),
        format!("{:.2}", r.cores),
        format!("{:.2}", r.thread_cores),
        f(l.p50_ns),
        f(l.p90_ns),
        f(l.p99_ns),
        f(l.max_ns),
        l.early,
        share(r.capped, l.samples),
        share(r.native_only, l.samples),
    );
}

pub fn render(report: &ThreadsReport) -> String {
    let mut out = String::from("punctual threads: many sleepers at once, on this machine\n");
    out.push_str(&header(&report.environment));
    let _ = writeln!(out, "  {:<16} {}", "run", describe_run(report));
    let _ = writeln!(
        out,
        "\n  {:<12} {:>9} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>6} {:>16} {:>16}",
        "method",
        "sleeps",
        "sleeps/s",
        "cores",
        "own",
        "p50",
        "p90",
        "p99",
        "max",
        "early",
        "capped",
        "native-only"
    );
    report.results.iter().for_each(|r| row(&mut out, r));
    over_rounds(&mut out, report);
    out.push_str(FOOTNOTE);
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

/// With rounds, each method's lateness over them, with its intervals, under the table.
fn over_rounds(out: &mut String, report: &ThreadsReport) {
    let mut short = None;
    for r in &report.results {
        let Some(over) = r.over_rounds else {
            continue;
        };
        let figures: Vec<String> = [
            (Figure::P50, over.p50_ns),
            (Figure::P99, over.p99_ns),
            (Figure::P999, over.p999_ns),
        ]
        .into_iter()
        .filter_map(|(figure, bounded)| {
            let b = bounded?;
            short = short.or(b.reach.map(|_| (over.rounds, b.interval())));
            Some(format!(
                "{} {}",
                figure.label(),
                format::nanos(&b.estimate(over.rounds))
            ))
        })
        .collect();
        let _ = writeln!(
            out,
            "  {} over {} rounds: {}",
            r.method,
            over.rounds,
            figures.join(", ")
        );
    }
    if let Some(note) = short.and_then(|(rounds, i)| format::reach_note(rounds, &i)) {
        let _ = writeln!(out, "  {note}.");
    }
}

const FOOTNOTE: &str = "
  * punctual's own. sleeps: completed by all of a method's threads together. cores: the
    process's CPU time over the wall time while the method ran; own: its threads' (and their
    helpers') CPU time over the same. Lateness is the bench's clock reading once the call has
    returned, past the deadline. capped: sleeps whose spin margin the CPU budget cut short;
    native-only: sleeps planned with no spin at all: backing off from CPUs the threads
    outnumber, or a CPU budget of zero (for methods with a learned spin tail).
";
