//! The wait table's block for a run of rounds (`--repeat K`): each figure the median over
//! the rounds with its interval, `158 µs [131–190]`; and the block layout the other modes'
//! tables of rounds share ([`block`]).
//!
//! Three figures with intervals, a method's name, its samples and early wakes fit 100
//! columns; the rest (min, mean, p90, p99.9 with its interval, max, the CPU share, each
//! method's rounds) are in the exports. Columns are as wide as their widest cell.

use std::fmt::Write;

use crate::bench::rounds::OverRounds;
use crate::bench::MethodResult;
use crate::intervals::bootstrap::Interval;
use crate::intervals::figure::Figure;
use crate::intervals::format;
use crate::units::format_nanos;

const FIGURES: [(Figure, &str); 3] = [
    (Figure::P50, "p50"),
    (Figure::P99, "p99"),
    (Figure::Cpu, "cpu/wait"),
];

/// The block's figures and their headers, in its order.
pub const FIGURE_LABELS: [&str; 3] = ["p50", "p99", "cpu/wait"];

/// A result's cells under [`FIGURE_LABELS`].
pub fn cells(r: &MethodResult) -> Vec<String> {
    FIGURES.iter().map(|&(figure, _)| cell(r, figure)).collect()
}

/// A result's cell for `figure`: over the rounds with the interval, or its pooled figure
/// where the rounds gave none.
fn cell(r: &MethodResult, figure: Figure) -> String {
    if r.summary.lateness.samples == 0 {
        return "-".to_string();
    }
    let l = &r.summary.lateness;
    let pooled = match figure {
        Figure::P50 => l.p50_ns,
        Figure::P99 => l.p99_ns,
        Figure::P999 => l.p999_ns,
        Figure::Cpu => r.summary.cpu_ns_per_wait,
    };
    figure_cell(r.over_rounds.as_ref(), figure, pooled)
}

/// `figure`'s cell, in nanoseconds: over the rounds with its interval, or `pooled` (every
/// round's waits together) where the rounds gave none (one round, an interval that could not
/// be computed).
pub fn figure_cell(over: Option<&OverRounds>, figure: Figure, pooled: u64) -> String {
    match over.and_then(|o| o.get(figure).map(|b| (o.rounds, *b))) {
        Some((rounds, bounded)) => format::nanos(&bounded.estimate(rounds)),
        None => format_nanos(pooled as f64),
    }
}

/// One row of a [`columns`] block: its leading cells, already laid out, and its figures' cells.
#[derive(Debug)]
pub struct Row {
    pub lead: String,
    pub cells: Vec<String>,
}

/// A block whose columns are each as wide as its widest cell: `lead` is the header of the
/// leading cells, `labels` those of the figures and any trailing cells, in the rows' order.
pub fn columns(out: &mut String, lead: &str, labels: &[&str], rows: &[Row]) {
    let widths: Vec<usize> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            rows.iter()
                .filter_map(|row| row.cells.get(i))
                .map(|cell| cell.chars().count())
                .chain([label.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let _ = write!(out, "{lead}");
    for (label, w) in labels.iter().zip(&widths) {
        let _ = write!(out, " {label:>w$}");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "{}", row.lead);
        for (value, w) in row.cells.iter().zip(&widths) {
            let _ = write!(out, " {value:>w$}");
        }
        out.push('\n');
    }
}

/// The block's header and rows; `name` is each row's method as the table writes it, in a
/// column `width` wide.
pub fn block(out: &mut String, rows: &[&MethodResult], names: &[String], width: usize) {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| FIGURES.iter().map(|&(figure, _)| cell(r, figure)).collect())
        .collect();
    let widths: Vec<usize> = FIGURES
        .iter()
        .enumerate()
        .map(|(i, (_, label))| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([label.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let _ = write!(out, "  {:<width$} {:>7}", "method", "samples");
    for ((_, label), w) in FIGURES.iter().zip(&widths) {
        let _ = write!(out, " {label:>w$}");
    }
    let _ = writeln!(out, " {:>6}", "early");
    for ((r, name), row) in rows.iter().zip(names).zip(&cells) {
        let _ = write!(out, "  {name:<width$} {:>7}", r.summary.lateness.samples);
        for (value, w) in row.iter().zip(&widths) {
            let _ = write!(out, " {value:>w$}");
        }
        let _ = writeln!(out, " {:>6}", r.summary.lateness.early);
    }
}

/// The shortest of the intervals in `results` that their rounds cannot make as sure as
/// asked, with its rounds, for the table's footnote.
pub fn short_interval(results: &[MethodResult]) -> Option<(usize, Interval)> {
    short_of(results.iter().filter_map(|r| r.over_rounds))
}

/// The shortest of the block's intervals (p50, p99, CPU) in `over` that their rounds cannot
/// make as sure as asked, with its rounds.
pub fn short_of(over: impl Iterator<Item = OverRounds>) -> Option<(usize, Interval)> {
    over.flat_map(|o| {
        FIGURES
            .iter()
            .filter_map(move |&(figure, _)| o.get(figure).map(|b| (o.rounds, b.interval())))
    })
    .filter(|(_, i)| i.reach.is_some())
    .min_by_key(|(rounds, _)| *rounds)
}

/// What the block's figures are, said under the table, at the run's `confidence`.
pub fn legend(confidence: f64) -> String {
    legend_of(
        confidence,
        "waits",
        "samples and early count every round's waits; the exports have the rest",
    )
}

/// [`legend`] for a table whose CPU is per `unit` (`waits`, `sleeps`) and whose other
/// figures are as `rest` says.
pub fn legend_of(confidence: f64, unit: &str, rest: &str) -> String {
    format!(
        "With rounds, p50 and p99 are the median over the rounds, cpu/wait the mean over all their {unit}, each with [its {} confidence interval] from a bootstrap of whole rounds; {rest}.",
        format::percent(confidence)
    )
}
