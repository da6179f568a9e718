//! The scale mode's blocks for a run of rounds (`--repeat K`), both workloads: each figure
//! the median over the rounds with its interval, `158 µs [131–190]`, as the wait table's
//! rounds block prints them (`rounds_table`). Columns are as wide as their widest cell.

use std::fmt::Write;

pub use super::rounds_table::{columns as block, Row};

use crate::bench::scale::repeats::{ScaleFigure, ScaleOverRounds};
use crate::intervals::bootstrap::Interval;
use crate::intervals::format;

/// The lateness block's figures and headers.
pub const LATENESS: [(ScaleFigure, &str); 3] = [
    (ScaleFigure::P50, "p50"),
    (ScaleFigure::P99, "p99"),
    (ScaleFigure::P999, "p99.9"),
];

/// `figure`'s cell: over the rounds with its interval, or `pooled` where the rounds gave
/// none (one round, or a figure the method has not).
pub fn cell(over: Option<&ScaleOverRounds>, figure: ScaleFigure, pooled: String) -> String {
    let Some((rounds, bounded)) = over.and_then(|o| o.get(figure).map(|b| (o.rounds, b))) else {
        return pooled;
    };
    let estimate = bounded.estimate(rounds);
    match figure {
        ScaleFigure::Rss | ScaleFigure::TimerBytes => format::bytes(&estimate),
        _ => format::nanos(&estimate),
    }
}

/// The shortest of the rows' intervals that their rounds cannot make as sure as asked,
/// with its rounds, for the footnote.
pub fn short_interval<'a>(
    over: impl Iterator<Item = &'a ScaleOverRounds>,
) -> Option<(usize, Interval)> {
    over.filter_map(|o| Some((o.rounds, o.short_interval()?)))
        .min_by_key(|(rounds, _)| *rounds)
}

/// What the blocks' figures are, and the footnote of a `*`, said under the table.
pub fn legend<'a>(out: &mut String, over: impl Iterator<Item = &'a ScaleOverRounds> + Clone) {
    for line in legend_lines(over) {
        let _ = writeln!(out, "  {line}");
    }
}

/// The lines of [`legend`]; none for a run of one round.
pub fn legend_lines<'a>(over: impl Iterator<Item = &'a ScaleOverRounds> + Clone) -> Vec<String> {
    let Some(confidence) = over
        .clone()
        .find_map(|o| o.p99_ns.or(o.cpu_ns_per_timer).map(|b| b.confidence))
    else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "With rounds (a round is a fresh process of each method, the methods' order alternating), each lateness percentile and byte count is the median over the rounds, CPU the mean over all their timers, each with [its {} confidence interval] from a bootstrap of whole rounds; counts add up every round's; the JSON export has each round.",
        format::percent(confidence)
    )];
    if let Some((rounds, interval)) = short_interval(over) {
        lines.extend(format::reach_note(rounds, &interval).map(|note| format!("{note}.")));
    }
    lines
}
