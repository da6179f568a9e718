//! The scale mode's table: per N, each method's lateness percentiles, CPU and memory per
//! timer; then how each of ours compares with itself at the smallest N and with tokio.

use std::fmt::Write;

use crate::bench::scale::{ScaleResult, FIRST_DEADLINE, SPREAD};
use crate::bench::Report;
use crate::units::{format_duration, format_nanos};

/// A scale row's values, formatted for people; the table and the Markdown export lay them
/// out.
pub struct ScaleCells {
    pub samples: String,
    /// p50, p90, p99, p99.9, max.
    pub lateness: [String; 5],
    /// The longest stall (see `bench::scale::stall`).
    pub stall: String,
    pub early: String,
    pub cpu: String,
    pub driver_cpu: String,
    pub rss: String,
    pub timer_bytes: String,
}

pub fn cells(r: &ScaleResult) -> ScaleCells {
    let ns = |v: u64| format_nanos(v as f64);
    let maybe_ns = |v: Option<u64>| v.map_or("-".to_string(), ns);
    ScaleCells {
        samples: r.lateness.samples.to_string(),
        lateness: [
            ns(r.lateness.p50_ns),
            ns(r.lateness.p90_ns),
            ns(r.lateness.p99_ns),
            ns(r.lateness.p999_ns),
            ns(r.lateness.max_ns),
        ],
        stall: ns(r.stalls.longest_stall_ns),
        early: r.lateness.early.to_string(),
        cpu: maybe_ns(r.cpu_ns_per_timer),
        driver_cpu: maybe_ns(r.driver_cpu_ns_per_timer),
        rss: r
            .rss_bytes_per_timer
            .map_or("-".to_string(), |b| format!("{b} B")),
        timer_bytes: format!("{} B", r.timer_bytes),
    }
}

/// Says how the scale run was made, in one line.
pub fn describe(report: &Report) -> String {
    let load = match report.run.load_threads {
        0 => "no load".to_string(),
        n => format!("{n} load threads at {} priority", report.run.load.name()),
    };
    format!(
        "scale mode: N timers pending at once, deadlines uniform over {} to {} ahead, one tokio current-thread task each, the executor kept busy until the deadlines start; at least {} timers and {} per method and N; each method and N in a process of its own; {load}",
        format_duration(FIRST_DEADLINE),
        format_duration(FIRST_DEADLINE + SPREAD),
        report.run.samples_per_method.unwrap_or(0),
        match report.run.min_rounds.unwrap_or(1) {
            1 => "1 round".to_string(),
            n => format!("{n} rounds"),
        },
    )
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  {:<16} {}", "run", describe(report));
    let _ = writeln!(
        out,
        "\nlateness past the deadline (lower is better), CPU and memory per timer"
    );
    let _ = writeln!(
        out,
        "  {:>9} {:<12} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>8} {:>8}",
        "timers",
        "method",
        "samples",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "stall",
        "early",
        "cpu",
        "drv cpu",
        "rss",
        "timer"
    );
    for r in &report.scale {
        let name = if r.ours {
            format!("{} *", r.method)
        } else {
            r.method.clone()
        };
        let c = cells(r);
        let _ = write!(out, "  {:>9} {name:<12} {:>8}", r.timers, c.samples);
        for value in &c.lateness {
            let _ = write!(out, " {value:>9}");
        }
        let _ = writeln!(
            out,
            " {:>9} {:>6} {:>9} {:>9} {:>8} {:>8}",
            c.stall, c.early, c.cpu, c.driver_cpu, c.rss, c.timer_bytes
        );
    }
    out.push_str("\n  * punctual's own methods. stall: the longest stretch with a timer overdue and none completing; cpu: the whole process while the timers were pending, per timer; drv cpu: the timer thread's (punctual's driver; tokio's wheel runs on the executor), per timer; rss: resident memory grown per pending task, task and timer; timer: the timer's own bytes (punctual: Sleep plus its share of the driver's storage; tokio: its Sleep).\n");
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}
