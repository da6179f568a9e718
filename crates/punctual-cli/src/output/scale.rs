//! The scale mode's table: per N, each method's lateness percentiles, CPU and memory per
//! timer; then how each of ours compares with itself at the smallest N and with tokio.

use std::fmt::Write;

use super::scale_rounds::{self, Row, LATENESS};
use crate::bench::scale::repeats::ScaleFigure;
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
    let repeat = match report.scale.iter().map(|r| r.repeats.len()).max() {
        Some(k) if k > 1 => format!(", {k} times over, the methods' order alternating"),
        _ => String::new(),
    };
    format!(
        "scale mode: N timers pending at once, deadlines uniform over {} to {} ahead, one tokio current-thread task each, the executor kept busy until the deadlines start; at least {} timers and {} per method and N; each method and N in a process of its own{repeat}; {load}",
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
    if report.scale.iter().any(|r| r.over_rounds.is_some()) {
        rounds_blocks(&mut out, report);
    } else {
        pooled_table(&mut out, report);
    }
    out.push_str("\n  * punctual's own methods. stall: the longest stretch with a timer overdue and none completing; cpu: the whole process while the timers were pending, per timer; drv cpu: the timer thread's (punctual's driver; tokio's wheel runs on the executor), per timer; rss: resident memory grown per pending task, task and timer; timer: the timer's own bytes (punctual: Sleep plus its share of the driver's storage; tokio: its Sleep).\n");
    scale_rounds::legend(
        &mut out,
        report.scale.iter().filter_map(|r| r.over_rounds.as_ref()),
    );
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

fn name(r: &ScaleResult) -> String {
    if r.ours {
        format!("{} *", r.method)
    } else {
        r.method.clone()
    }
}

/// The table of a run of one round: every figure from its one process.
fn pooled_table(out: &mut String, report: &Report) {
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
        let name = name(r);
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
}

/// The headers of a run of rounds' lateness block after samples, and of its cost block.
pub const ROUNDS_LATENESS: [&str; 6] = ["p50", "p99", "p99.9", "max", "stall", "early"];
pub const ROUNDS_COST: [&str; 4] = ["cpu", "drv cpu", "rss", "timer"];

/// A scale row's cells in a run of rounds, under [`ROUNDS_LATENESS`] and [`ROUNDS_COST`]:
/// each figure over the rounds with its interval, the rest as a run of one round has them.
pub fn rounds_cells(r: &ScaleResult) -> (Vec<String>, Vec<String>) {
    let c = cells(r);
    let over = |figures: &[ScaleFigure]| -> Vec<String> {
        figures
            .iter()
            .map(|&f| scale_rounds::cell(r.over_rounds.as_ref(), f, pooled(&c, f)))
            .collect()
    };
    let mut lateness = over(&LATENESS.map(|(f, _)| f));
    lateness.extend([c.lateness[4].clone(), c.stall.clone(), c.early.clone()]);
    let cost = over(&[
        ScaleFigure::Cpu,
        ScaleFigure::DriverCpu,
        ScaleFigure::Rss,
        ScaleFigure::TimerBytes,
    ]);
    (lateness, cost)
}

/// The blocks of a run of rounds: lateness, then CPU and memory, each figure over the
/// rounds with its interval; then what the rounds add up to or their worst (the samples,
/// max, stall and early wakes). Three blocks so that each fits in 100 columns with its
/// intervals.
fn rounds_blocks(out: &mut String, report: &Report) {
    let lead = |timers: &str, name: &str| format!("  {timers:>9} {name:<12}");
    let header = lead("timers", "method");
    let (mut lateness, mut cost, mut totals) = (Vec::new(), Vec::new(), Vec::new());
    let figures = LATENESS.len();
    for r in &report.scale {
        let (mut l, c) = rounds_cells(r);
        let lead = lead(&r.timers.to_string(), &name(r));
        let worst = l.split_off(figures);
        totals.push(Row {
            lead: lead.clone(),
            cells: std::iter::once(r.lateness.samples.to_string())
                .chain(worst)
                .collect(),
        });
        lateness.push(Row {
            lead: lead.clone(),
            cells: l,
        });
        cost.push(Row { lead, cells: c });
    }
    let _ = writeln!(
        out,
        "\nlateness past the deadline over the rounds (lower is better)"
    );
    scale_rounds::block(out, &header, &ROUNDS_LATENESS[..figures], &lateness);
    let _ = writeln!(out, "\nCPU and memory per timer over the rounds");
    scale_rounds::block(out, &header, &ROUNDS_COST, &cost);
    let _ = writeln!(
        out,
        "\nevery round's samples together, and the worst round's max and stall"
    );
    let labels: Vec<&str> = std::iter::once("samples")
        .chain(ROUNDS_LATENESS[figures..].iter().copied())
        .collect();
    scale_rounds::block(out, &header, &labels, &totals);
}

/// A figure's cell as a run of one round shows it.
fn pooled(c: &ScaleCells, figure: ScaleFigure) -> String {
    match figure {
        ScaleFigure::P50 => c.lateness[0].clone(),
        ScaleFigure::P99 => c.lateness[2].clone(),
        ScaleFigure::P999 => c.lateness[3].clone(),
        ScaleFigure::Cpu => c.cpu.clone(),
        ScaleFigure::DriverCpu => c.driver_cpu.clone(),
        ScaleFigure::Rss => c.rss.clone(),
        ScaleFigure::TimerBytes => c.timer_bytes.clone(),
    }
}
