//! The threads run's table: one row per method; with rounds (`--repeat K`), two blocks, the
//! figures over the rounds with their intervals and then those over every round together.

use std::fmt::Write;
use std::time::Duration;

use super::rounds_table::{self, figure_cell, Row};
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

fn name(r: &ThreadsResult) -> String {
    if r.ours {
        format!("{} *", r.method)
    } else {
        r.method.clone()
    }
}

/// Sleeps completed a second of the crew's wall time.
fn rate(r: &ThreadsResult) -> String {
    format!(
        "{:.0}",
        r.lateness.samples as f64 / (r.wall_ns as f64 / 1e9).max(1e-9)
    )
}

fn row(out: &mut String, r: &ThreadsResult) {
    let l = &r.lateness;
    let name = name(r);
    let f = |ns: u64| format_nanos(ns as f64);
    let _ = writeln!(
        out,
        "  {name:<12} {:>9} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>6} {:>16} {:>16}",
        l.samples,
        rate(r),
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
    if report.results.iter().any(|r| r.over_rounds.is_some()) {
        rounds_blocks(&mut out, report);
    } else {
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
    }
    out.push_str(FOOTNOTE);
    if let Some(confidence) = report
        .results
        .iter()
        .find_map(|r| r.over_rounds?.p99_ns.map(|b| b.confidence))
    {
        let _ = writeln!(
            out,
            "  {}",
            rounds_table::legend_of(
                confidence,
                "sleeps (the crew's own CPU, as own counts it)",
                "sleeps and early count every round's, and the second block is over every round together; the JSON export has p99.9 with its interval, and each round"
            )
        );
    }
    if let Some((rounds, interval)) =
        rounds_table::short_of(report.results.iter().filter_map(|r| r.over_rounds))
    {
        if let Some(note) = format::reach_note(rounds, &interval) {
            let _ = writeln!(out, "  {note}.");
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

/// With rounds: the figures over the rounds with their intervals (p50, p99 and the crew's
/// CPU per sleep), then what has no figure per round (rates, cores, the worst wake, the
/// spin counts) over every round together. One table of both would not fit 100 columns.
fn rounds_blocks(out: &mut String, report: &ThreadsReport) {
    let names: Vec<String> = report.results.iter().map(name).collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .chain([12])
        .max()
        .unwrap_or(0);
    let lead = |name: &str| format!("  {name:<width$}");
    let over: Vec<Row> = report
        .results
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            let l = &r.lateness;
            let o = r.over_rounds.as_ref();
            let own_cpu = (r.thread_cores * r.wall_ns as f64 / l.samples.max(1) as f64) as u64;
            Row {
                lead: lead(name),
                cells: vec![
                    l.samples.to_string(),
                    figure_cell(o, Figure::P50, l.p50_ns),
                    figure_cell(o, Figure::P99, l.p99_ns),
                    figure_cell(o, Figure::Cpu, own_cpu),
                    l.early.to_string(),
                ],
            }
        })
        .collect();
    out.push('\n');
    rounds_table::columns(
        out,
        &lead("method"),
        &["sleeps", "p50", "p99", "cpu/wait", "early"],
        &over,
    );
    let together: Vec<Row> = report
        .results
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            let l = &r.lateness;
            Row {
                lead: lead(name),
                cells: vec![
                    rate(r),
                    format!("{:.2}", r.cores),
                    format!("{:.2}", r.thread_cores),
                    format_nanos(l.max_ns as f64),
                    share(r.capped, l.samples),
                    share(r.native_only, l.samples),
                ],
            }
        })
        .collect();
    out.push('\n');
    rounds_table::columns(
        out,
        &lead("method"),
        &["sleeps/s", "cores", "own", "max", "capped", "native-only"],
        &together,
    );
}

const FOOTNOTE: &str = "
  * punctual's own. sleeps: completed by all of a method's threads together. cores: the
    process's CPU time over the wall time while the method ran; own: its threads' (and their
    helpers') CPU time over the same. Lateness is the bench's clock reading once the call has
    returned, past the deadline. capped: sleeps whose spin margin the CPU budget cut short;
    native-only: sleeps planned with no spin at all: backing off from CPUs the threads
    outnumber, or a CPU budget of zero (for methods with a learned spin tail).
";
