//! The frontier run's table: one block per wait, the sweeps then the adaptive methods,
//! and where each adaptive method sits.

use std::fmt::Write;
use std::time::Duration;

use super::table::header;
use crate::bench::frontier::{sweep_verdict, FrontierPoint, FrontierReport, Placement};
use crate::units::{format_nanos, wait_label};

fn describe_run(report: &FrontierReport) -> String {
    let run = &report.run;
    let load = match run.load_threads {
        0 => "no load".to_string(),
        n => format!("{n} load threads at {} priority", run.load.name()),
    };
    let sizes = run
        .waits
        .iter()
        .map(|w| {
            format!(
                "{} {}",
                wait_label(Duration::from_nanos(w.wait_ns)),
                w.samples_per_contender
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let rounds = match report.rounds() {
        1 => String::new(),
        k => format!(" and round, {k} rounds"),
    };
    format!(
        "frontier, {} phase, {load}, samples per contender{rounds}: {sizes}; {} warm-up waits",
        match run.phase {
            crate::bench::Phase::Aligned => "aligned",
            crate::bench::Phase::Scrambled => "scrambled",
        },
        run.warmup
    )
}

fn row(out: &mut String, p: &FrontierPoint) {
    let s = &p.summary;
    let l = &s.lateness;
    let name = if p.ours {
        format!("{} *", p.label)
    } else {
        p.label.clone()
    };
    let f = |ns: u64| format_nanos(ns as f64);
    let _ = writeln!(
        out,
        "  {name:<28} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10} {:>7}",
        l.samples,
        f(l.p50_ns),
        f(l.p99_ns),
        f(l.p999_ns),
        f(l.max_ns),
        l.early,
        f(s.cpu_ns_per_wait),
        format!("{:.1}%", p.cpu_share * 100.0)
    );
}

fn placement(out: &mut String, p: &Placement) {
    let f = |ns: u64| format_nanos(ns as f64);
    let frontier = match (p.frontier_p99_ns, p.p99_to_frontier) {
        (Some(at), Some(ratio)) => format!(
            "the fixed-margin frontier there has p99 {} ({}): {ratio:.2}x the frontier",
            f(at),
            p.frontier_basis
        ),
        _ => format!("no frontier to compare with: {}", p.frontier_basis),
    };
    let _ = writeln!(
        out,
        "  {}: {} CPU per wait, p99 {}; {frontier}",
        p.method,
        f(p.cpu_ns_per_wait),
        f(p.p99_ns)
    );
    if let (Some(cpu), Some(p99), Some(cpu_ratio), Some(p99_ratio)) = (
        p.spin_sleep_default_cpu_ns_per_wait,
        p.spin_sleep_default_p99_ns,
        p.cpu_to_spin_sleep,
        p.p99_to_spin_sleep,
    ) {
        let _ = writeln!(
            out,
            "  {} against spin_sleep's default: CPU {} vs {} ({cpu_ratio:.2}x), p99 {} vs {} ({p99_ratio:.2}x)",
            p.method,
            f(p.cpu_ns_per_wait),
            f(cpu),
            f(p.p99_ns),
            f(p99)
        );
    }
}

/// What the fixed margins' rank correlation of p99 with margin says of the frontier.
fn describe_order(order: f64) -> String {
    format!(
        "fixed margins: p99 against margin, rank correlation {order:+.2}: {}",
        sweep_verdict(order)
    )
}

pub fn render(report: &FrontierReport) -> String {
    let mut out =
        String::from("punctual frontier: CPU per wait against tail lateness, on this machine\n");
    out.push_str(&header(&report.environment));
    let _ = writeln!(out, "  {:<16} {}", "run", describe_run(report));
    for size in &report.run.waits {
        let wait = size.wait_ns;
        let _ = writeln!(
            out,
            "\nwait {}: CPU per wait against lateness past the deadline (lower is better)",
            wait_label(Duration::from_nanos(wait))
        );
        let _ = writeln!(
            out,
            "  {:<28} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10} {:>7}",
            "contender", "samples", "p50", "p99", "p99.9", "max", "early", "cpu/wait", "cpu"
        );
        let points: Vec<&FrontierPoint> =
            report.points.iter().filter(|p| p.wait_ns == wait).collect();
        points.iter().for_each(|p| row(&mut out, p));
        let placed: Vec<&Placement> = report
            .placements
            .iter()
            .filter(|p| p.wait_ns == wait)
            .collect();
        placed.iter().for_each(|p| placement(&mut out, p));
        for fit in placed.iter().filter_map(|p| p.fit.as_ref()) {
            let _ = writeln!(
                out,
                "  against the fixed margins' monotone fit over every round: {}",
                fit.text
            );
        }
        if let Some(order) = placed.first().and_then(|p| p.sweep_order) {
            let _ = writeln!(out, "  {}", describe_order(order));
        }
        for p in &points {
            let s = &p.summary;
            if let (Some(p50), Some(p99)) = (s.self_reported_p50_ns, s.self_reported_p99_ns) {
                let _ = writeln!(
                    out,
                    "  {}: by its own wake reading, before returning: p50 {}, p99 {}",
                    p.label,
                    format_nanos(p50 as f64),
                    format_nanos(p99 as f64)
                );
            }
        }
    }
    out.push_str(FOOTNOTE);
    if let Some((rounds, interval)) = report
        .placements
        .iter()
        .filter_map(|p| p.fit.as_ref()?.p99_to_fit)
        .map(|b| (report.rounds(), b.interval()))
        .find(|(_, i)| i.reach.is_some())
    {
        if let Some(note) = crate::intervals::format::reach_note(rounds, &interval) {
            let _ = writeln!(out, "  {note}.");
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

const FOOTNOTE: &str = "
  * punctual's own. margin M: punctual's native sleep to the deadline less M, then a plain
    spin. spin_sleep A: the spin_sleep crate at native accuracy A, its default spin strategy.
    Lateness is the bench's clock reading once the call has returned; early wakes count as
    0 in the percentiles. cpu is the measuring thread's CPU time per wait (plus its driver
    thread's, for async-spin). The frontier's p99 at a CPU is read between the fixed margins
    no cheaper one beats, on a straight line on a log axis; below the cheapest, at it.
";
