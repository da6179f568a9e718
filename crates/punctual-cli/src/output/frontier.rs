//! The frontier run's table: one block per wait, the sweeps then the adaptive methods,
//! and where each adaptive method sits.
//!
//! With rounds (`--repeat K`, K from 2, the default) each cell is the figure over the rounds
//! with its interval, as the wait table's rounds block prints it, and each adaptive method
//! is placed against the fixed margins' monotone fit, then set against spin_sleep's default
//! from the rounds they shared. The lower envelope that a run of one round is placed
//! against is read from every round's waits pooled; beside the medians it would be a second
//! verdict on other figures (one slow round sets a pooled p99), so the table leaves it to the
//! JSON export's `placements`.

use std::fmt::Write;
use std::time::Duration;

use super::rounds_table::{self, figure_cell, Row};
use super::table::header;
use crate::bench::frontier::{sweep_verdict, Family, FrontierPoint, FrontierReport, Placement};
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::Figure;
use crate::intervals::format;
use crate::intervals::paired;
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

fn name(p: &FrontierPoint) -> String {
    if p.ours {
        format!("{} *", p.label)
    } else {
        p.label.clone()
    }
}

/// A contender of a run of one round: every figure over its waits.
fn row(out: &mut String, p: &FrontierPoint) {
    let s = &p.summary;
    let l = &s.lateness;
    let name = name(p);
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

fn pooled_block(out: &mut String, points: &[&FrontierPoint]) {
    let _ = writeln!(
        out,
        "  {:<28} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10} {:>7}",
        "contender", "samples", "p50", "p99", "p99.9", "max", "early", "cpu/wait", "cpu"
    );
    points.iter().for_each(|p| row(out, p));
}

/// The block of a run of rounds: p50, p99 and CPU per wait over the rounds with their
/// intervals, and early wakes; `samples` only where a contender measured other than the run
/// line says (a run Ctrl-C stopped), since every contender takes the same number.
fn rounds_block(out: &mut String, points: &[&FrontierPoint], expected_samples: u64) {
    let names: Vec<String> = points.iter().map(|p| name(p)).collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .chain(["contender".len()])
        .max()
        .unwrap_or(0);
    let show_samples = points
        .iter()
        .any(|p| p.summary.lateness.samples != expected_samples);
    let rows: Vec<Row> = points
        .iter()
        .zip(&names)
        .map(|(p, name)| {
            let l = &p.summary.lateness;
            let over = p.over_rounds.as_ref();
            let mut cells = Vec::new();
            if show_samples {
                cells.push(l.samples.to_string());
            }
            cells.extend([
                figure_cell(over, Figure::P50, l.p50_ns),
                figure_cell(over, Figure::P99, l.p99_ns),
                figure_cell(over, Figure::Cpu, p.summary.cpu_ns_per_wait),
                l.early.to_string(),
            ]);
            Row {
                lead: format!("  {name:<width$}"),
                cells,
            }
        })
        .collect();
    let mut labels = Vec::new();
    if show_samples {
        labels.push("samples");
    }
    labels.extend(["p50", "p99", "cpu/wait", "early"]);
    rounds_table::columns(out, &format!("  {:<width$}", "contender"), &labels, &rows);
}

/// Against the lower envelope of one run (a run of one round).
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

/// With rounds: each adaptive method against the fit, then over spin_sleep's default from
/// the rounds they shared.
fn placed_on_fit(
    out: &mut String,
    placed: &[&Placement],
    points: &[&FrontierPoint],
    settings: &Settings,
) {
    for fit in placed.iter().filter_map(|p| p.fit.as_ref()) {
        let _ = writeln!(out, "  {}", fit.text);
    }
    let Some(default) = points.iter().find(|p| p.default && !p.rounds.is_empty()) else {
        return;
    };
    let adaptive = points
        .iter()
        .filter(|p| matches!(p.family, Family::Hybrid | Family::AsyncSpin));
    for method in adaptive {
        let ratios: Vec<_> = [Figure::P50, Figure::P99, Figure::Cpu]
            .into_iter()
            .filter_map(|figure| {
                paired::ratio(&default.rounds, &method.rounds, figure, settings)
                    .ok()
                    .flatten()
            })
            .collect();
        if !ratios.is_empty() {
            let at = wait_label(Duration::from_nanos(method.wait_ns));
            let _ = writeln!(
                out,
                "  {}",
                format::comparison(&method.label, &default.label, &at, &ratios)
            );
        }
    }
}

/// What the fixed margins' rank correlation of p99 with margin says of the frontier.
fn describe_order(order: f64) -> String {
    format!(
        "fixed margins: p99 against margin, rank correlation {order:+.2}: {}",
        sweep_verdict(order)
    )
}

/// The table; `settings` are the run's intervals', for the paired lines of a run of rounds.
pub fn render(report: &FrontierReport, settings: &Settings) -> String {
    let mut out =
        String::from("punctual frontier: CPU per wait against tail lateness, on this machine\n");
    out.push_str(&header(&report.environment));
    let _ = writeln!(out, "  {:<16} {}", "run", describe_run(report));
    let with_rounds = report.rounds() > 1;
    let mut pooled_shown = false;
    for size in &report.run.waits {
        let wait = size.wait_ns;
        let _ = writeln!(
            out,
            "\nwait {}: CPU per wait against lateness past the deadline (lower is better)",
            wait_label(Duration::from_nanos(wait))
        );
        let points: Vec<&FrontierPoint> =
            report.points.iter().filter(|p| p.wait_ns == wait).collect();
        let placed: Vec<&Placement> = report
            .placements
            .iter()
            .filter(|p| p.wait_ns == wait)
            .collect();
        if with_rounds {
            let expected = size.samples_per_contender * report.rounds() as u64;
            rounds_block(&mut out, &points, expected);
            placed_on_fit(&mut out, &placed, &points, settings);
        } else {
            pooled_block(&mut out, &points);
            placed.iter().for_each(|p| placement(&mut out, p));
        }
        if let Some(order) = placed.first().and_then(|p| p.sweep_order) {
            let _ = writeln!(out, "  {}", describe_order(order));
        }
        for p in &points {
            let s = &p.summary;
            if let (Some(p50), Some(p99)) = (s.self_reported_p50_ns, s.self_reported_p99_ns) {
                let pooled = if with_rounds { " (pooled)" } else { "" };
                pooled_shown |= with_rounds;
                let _ = writeln!(
                    out,
                    "  {}: by its own wake reading, before returning{pooled}: p50 {}, p99 {}",
                    p.label,
                    format_nanos(p50 as f64),
                    format_nanos(p99 as f64)
                );
            }
        }
    }
    out.push_str(FOOTNOTE);
    out.push_str(if with_rounds {
        FRONTIER_OF_ROUNDS
    } else {
        FRONTIER_OF_ONE_RUN
    });
    if with_rounds {
        legend(&mut out, report, pooled_shown);
    }
    for note in &report.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    out
}

/// Under a table of rounds: what its figures are, what `(pooled)` means where it is
/// printed, and the footnote of a `*`.
fn legend(out: &mut String, report: &FrontierReport, pooled_shown: bool) {
    let confidence = report
        .points
        .iter()
        .find_map(|p| p.over_rounds?.p99_ns.map(|b| b.confidence));
    if let Some(confidence) = confidence {
        let _ = writeln!(
            out,
            "  {}",
            rounds_table::legend_of(
                confidence,
                "waits",
                "early counts every round's waits; p99.9, max, the CPU share and the lower envelope of the pooled waits are in the JSON export"
            )
        );
    }
    if pooled_shown {
        let _ = writeln!(
            out,
            "  (pooled): every round's waits in one histogram, where one slow round can set a p99 that the medians leave out."
        );
    }
    let cells = rounds_table::short_of(report.points.iter().filter_map(|p| p.over_rounds));
    let fits = report
        .placements
        .iter()
        .filter_map(|p| p.fit.as_ref()?.p99_to_fit)
        .map(|b| (report.rounds(), b.interval()))
        .find(|(_, i)| i.reach.is_some());
    if let Some((rounds, interval)) = cells.or(fits) {
        if let Some(note) = format::reach_note(rounds, &interval) {
            let _ = writeln!(out, "  {note}.");
        }
    }
}

const FOOTNOTE: &str = "
  * punctual's own. margin M: punctual's native sleep to the deadline less M, then a plain
    spin. spin_sleep A: the spin_sleep crate at native accuracy A, its default spin strategy.
    Lateness is the bench's clock reading once the call has returned; early wakes count as
    0 in the percentiles. cpu is the measuring thread's CPU time per wait (plus its driver
    thread's, for async-spin).";

const FRONTIER_OF_ONE_RUN: &str = " The frontier's p99 at a CPU is read between the fixed margins
    no cheaper one beats, on a straight line on a log axis; below the cheapest, at it.
";

const FRONTIER_OF_ROUNDS: &str = " The frontier is the monotone fit of the fixed margins'
    p99 against their CPU, each margin's median over the rounds, read on a straight line on a
    log axis between them; a method is placed at its median (docs/intervals.md).
";
