//! The server workload's table: what each timeout cost, then how late the fired ones were
//! and how far the schedule fell behind; one row per method and runtime.

use std::fmt::Write;
use std::time::Duration;

use super::scale_rounds::{self, Row, LATENESS};
use super::table::header;
use crate::bench::scale::repeats::ScaleFigure;
use crate::bench::scale::server::{ServerReport, ServerResult};
use crate::units::{format_duration, format_nanos};

fn describe_run(report: &ServerReport) -> String {
    let run = &report.run;
    let load = match run.load_threads {
        0 => "no load".to_string(),
        n => format!("{n} load threads at {} priority", run.load.name()),
    };
    let repeat = match report.results.iter().map(|r| r.repeats.len()).max() {
        Some(k) if k > 1 => {
            format!(", {k} times over (a fresh process each, the methods' order alternating)")
        }
        _ => String::new(),
    };
    format!(
        "server workload, {} timeouts pending, then {} registered a second for {} per method{repeat}; each {}..{} (log-uniform), {:.0}% cancelled before its deadline; {} workers on the multi-thread runtime, {load}",
        run.pending,
        run.churn_per_s,
        format_duration(Duration::from_nanos(run.duration_ns)),
        format_duration(Duration::from_nanos(run.shortest_ns)),
        format_duration(Duration::from_nanos(run.longest_ns)),
        run.cancelled_share * 100.0,
        run.workers,
    )
}

fn name(r: &ServerResult) -> String {
    if r.ours {
        format!("{} *", r.method)
    } else {
        r.method.clone()
    }
}

fn nanos(ns: Option<u64>) -> String {
    ns.map_or("-".to_string(), |ns| format_nanos(ns as f64))
}

fn cost_row(out: &mut String, r: &ServerResult) {
    let _ = writeln!(
        out,
        "  {:<12} {:<14} {:>10} {:>9} {:>10} {:>9} {:>10} {:>10} {:>10} {:>9}",
        name(r),
        r.runtime,
        r.registered,
        r.fired,
        r.cancelled,
        r.left_pending,
        nanos(r.cpu_ns_per_timer),
        nanos(r.driver_cpu_ns_per_timer),
        r.rss_bytes_per_pending
            .map_or("-".to_string(), |b| format!("{b} B")),
        format!("{} B", r.timer_bytes),
    );
}

fn lateness_row(out: &mut String, r: &ServerResult) {
    let l = &r.lateness;
    let f = |ns: u64| format_nanos(ns as f64);
    let _ = writeln!(
        out,
        "  {:<12} {:<14} {:>9} {:>9} {:>9} {:>9} {:>6} {:>18} {:>18} {:>9} {:>8}",
        name(r),
        r.runtime,
        f(l.p50_ns),
        f(l.p99_ns),
        f(l.p999_ns),
        f(l.max_ns),
        l.early,
        format!(
            "{} / {}",
            f(r.registration_lag_max_ns),
            f(r.registration_lag_final_ns)
        ),
        format!("{} / {}", f(r.cancel_lag_max_ns), f(r.cancel_lag_final_ns)),
        r.cancel_too_late,
        r.not_registered,
    );
}

pub fn render(report: &ServerReport) -> String {
    let mut out = String::from(
        "punctual scale --workload server: a server's timeouts, most cancelled, on this machine\n",
    );
    out.push_str(&header(&report.environment));
    let _ = writeln!(out, "  {:<16} {}", "run", describe_run(report));
    let _ = writeln!(out, "\ntimeouts and their cost (lower is better)");
    let _ = writeln!(
        out,
        "  {:<12} {:<14} {:>10} {:>9} {:>10} {:>9} {:>10} {:>10} {:>10} {:>9}",
        "method",
        "runtime",
        "registered",
        "fired",
        "cancelled",
        "left",
        "cpu/timer",
        "driver",
        "rss",
        "counted",
    );
    report.results.iter().for_each(|r| cost_row(&mut out, r));
    let _ = writeln!(
        out,
        "\nfired timeouts: lateness past the deadline; the schedule's lag (lower is better)"
    );
    let _ = writeln!(
        out,
        "  {:<12} {:<14} {:>9} {:>9} {:>9} {:>9} {:>6} {:>18} {:>18} {:>9} {:>8}",
        "method",
        "runtime",
        "p50",
        "p99",
        "p99.9",
        "max",
        "early",
        "register max/end",
        "cancel max/end",
        "too late",
        "unpolled",
    );
    report
        .results
        .iter()
        .for_each(|r| lateness_row(&mut out, r));
    if report.results.iter().any(|r| r.over_rounds.is_some()) {
        rounds_block(&mut out, report);
    }
    out.push_str(FOOTNOTE);
    scale_rounds::legend(
        &mut out,
        report.results.iter().filter_map(|r| r.over_rounds.as_ref()),
    );
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

/// The figures over the rounds with their intervals: the fired timeouts' lateness, then
/// the cost per timeout.
fn rounds_block(out: &mut String, report: &ServerReport) {
    let lead = |name: &str, runtime: &str| format!("  {name:<12} {runtime:<14}");
    let rows = |figures: &[ScaleFigure]| -> Vec<Row> {
        report
            .results
            .iter()
            .map(|r| Row {
                lead: lead(&name(r), &r.runtime),
                cells: figures
                    .iter()
                    .map(|&f| scale_rounds::cell(r.over_rounds.as_ref(), f, pooled(r, f)))
                    .collect(),
            })
            .collect()
    };
    let _ = writeln!(
        out,
        "\nover the rounds: fired timeouts' lateness (lower is better)"
    );
    let figures: Vec<ScaleFigure> = LATENESS.iter().map(|&(f, _)| f).collect();
    let labels: Vec<&str> = LATENESS.iter().map(|&(_, l)| l).collect();
    scale_rounds::block(out, &lead("method", "runtime"), &labels, &rows(&figures));
    let _ = writeln!(out, "\nover the rounds: cost per timeout (lower is better)");
    scale_rounds::block(
        out,
        &lead("method", "runtime"),
        &["cpu/timer", "driver", "rss", "counted"],
        &rows(&[
            ScaleFigure::Cpu,
            ScaleFigure::DriverCpu,
            ScaleFigure::Rss,
            ScaleFigure::TimerBytes,
        ]),
    );
}

/// A figure's cell as a run of one round shows it.
fn pooled(r: &ServerResult, figure: ScaleFigure) -> String {
    let l = &r.lateness;
    match figure {
        ScaleFigure::P50 => nanos(Some(l.p50_ns)),
        ScaleFigure::P99 => nanos(Some(l.p99_ns)),
        ScaleFigure::P999 => nanos(Some(l.p999_ns)),
        ScaleFigure::Cpu => nanos(r.cpu_ns_per_timer),
        ScaleFigure::DriverCpu => nanos(r.driver_cpu_ns_per_timer),
        ScaleFigure::Rss => r
            .rss_bytes_per_pending
            .map_or("-".to_string(), |b| format!("{b} B")),
        ScaleFigure::TimerBytes => format!("{} B", r.timer_bytes),
    }
}

const FOOTNOTE: &str = "
  * punctual's own. registered = fired + cancelled + left (pending when the churn ended).
    cpu/timer: the process's CPU during the churn, less the pacer thread's, per timeout the
    churn registered; driver: the timer thread's over the same (tokio has none). rss: resident
    memory grown while the pending set registered, per timeout of it pending at the peak (the
    task, its timer, their share of the executor's and the timer's structures); counted: the
    library's own count per pending timeout. Lateness: the task's clock reading after its
    await, past the deadline it gave, for the timeouts that fired during the churn. register,
    cancel: the latest a churn timeout was registered (cancelled) after its due time, and the
    last one's. too late: drawn to be cancelled, fired first. unpolled: spawned, not polled by
    the end.
";
