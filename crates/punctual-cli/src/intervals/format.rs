//! The intervals as a table cell and a sentence: `158 µs [131–190]`, `1.06x [0.81–1.39]`,
//! and the lines that compare two methods, place one on the frontier or compare two runs.
//!
//! A cell gives the bounds in the figure's unit, three significant figures each, where they
//! read as plain numbers there (`158 µs [131–190]`); a bound a thousand units or more from
//! the figure's, or under a hundredth of one, would be a run of digits (`238975`) or of
//! zeros, so then both bounds carry their own units (`199 ns [199 ns–239 µs]`). A cell stays
//! within [`CELL_WIDTH`] characters, and four figures and a method's name fit a 100-column
//! table. An interval that its rounds cannot make as sure as asked is marked `*`, and
//! [`reach_note`] is the footnote that says why.

use super::bootstrap::{rounds_for, Interval};
use super::figure::Estimate;
use super::frontier::{Placement, Side};
use super::paired::{Ratio, Verdict};
use super::permutation::Comparison;
use crate::units::format_nanos;

/// The widest cell [`nanos`] writes for figures and bounds from 1 ns to an hour, the bounds
/// within a hundredth and a thousand times the figure: `1.23 µs [1.11 µs–1.23 ms]*`. Most
/// cells are 16 or 17 characters; only bounds in units of their own are wider than 21.
// The table sizes its columns by their widest cell; the tests hold every cell to this.
#[cfg_attr(not(test), allow(dead_code))]
pub const CELL_WIDTH: usize = 26;

/// The mark of an interval short of its confidence.
pub const SHORT: &str = "*";

/// A figure in nanoseconds with its interval: `158 µs [131–190]`, `158 µs [131–190]*` where
/// the rounds cannot reach the confidence, `199 ns [199 ns–239 µs]` where a bound is far
/// from the figure's unit (see the module docs), `158 µs` for one round.
pub fn nanos(estimate: &Estimate) -> String {
    let centre = format_nanos(estimate.value);
    let Some(interval) = estimate.interval else {
        return centre;
    };
    let scale = match centre.rsplit(' ').next() {
        Some("µs") => 1e3,
        Some("ms") => 1e6,
        Some("s") => 1e9,
        _ => 1.0,
    };
    // Nanoseconds are whole, so a bound under one of them is 0 and reads as such.
    let least = if scale == 1.0 { 0.0 } else { 0.01 };
    let plain = |ns: f64| {
        let value = (ns / scale).abs();
        value == 0.0 || (least..999.5).contains(&value)
    };
    let bound = |ns: f64| {
        match ns / scale {
            _ if scale == 1.0 => format!("{ns:.0}"),
            // Two figures below a tenth of the unit, so that `0.010` stays five characters.
            small if small < 0.1 => format!("{small:.prec$}", prec = decimals(small, 2)),
            value => significant(value),
        }
    };
    let (low, high) = if plain(interval.low) && plain(interval.high) {
        (bound(interval.low), bound(interval.high))
    } else {
        (format_nanos(interval.low), format_nanos(interval.high))
    };
    format!("{centre} [{low}–{high}]{}", mark(&interval))
}

/// A byte count with its interval: `120 B [118–124]`, `120 B` for one round.
pub fn bytes(estimate: &Estimate) -> String {
    let centre = format!("{:.0} B", estimate.value);
    match estimate.interval {
        None => centre,
        Some(i) => format!("{centre} [{:.0}–{:.0}]{}", i.low, i.high, mark(&i)),
    }
}

/// A ratio with its interval: `0.46x [0.41–0.52]`.
pub fn ratio(estimate: &Estimate) -> String {
    let centre = format!("{}x", times(estimate.value));
    match estimate.interval {
        None => centre,
        Some(i) => format!("{centre} [{}–{}]{}", times(i.low), times(i.high), mark(&i)),
    }
}

/// One figure of a comparison: `p99 1.06x [0.81–1.39] (no difference shown)`; a figure
/// whose interval excludes 1 needs no word, the side of 1 it is on says which way.
pub fn figure_ratio(r: &Ratio) -> String {
    let mut text = format!("{} {}", r.figure.label(), ratio(&r.estimate));
    if r.estimate.interval.is_none() {
        text.push_str(" (one round: no interval)");
    } else if r.verdict() == Verdict::NoDifferenceShown {
        text.push_str(" (no difference shown)");
    }
    text
}

/// `hybrid/spin_sleep at 1 ms: p50 0.46x [0.41–0.52], p99 1.06x [0.81–1.39] (no
/// difference shown), CPU 2.4x [2.2–2.6]`: each ratio is `first`'s figure over
/// `second`'s, from their paired rounds, and the line opens with that quotient so that
/// which way it goes cannot be misread.
pub fn comparison(first: &str, second: &str, at: &str, ratios: &[Ratio]) -> String {
    let figures: Vec<String> = ratios.iter().map(figure_ratio).collect();
    format!("{first}/{second} at {at}: {}", figures.join(", "))
}

/// `hybrid at 1 ms: p99 158 µs [131–190] at 2.10 µs [2.05–2.16] of CPU, 1.06x [0.81–1.39]
/// the fixed margins' fit there (149 µs [120–170]): cannot tell at this noise`.
pub fn placement(method: &str, at: &str, p: &Placement, tolerance: f64) -> String {
    let side = match p.side {
        Side::On => format!("on the frontier (within {:.0}%)", tolerance * 100.0),
        other => other.text().to_string(),
    };
    format!(
        "{method} at {at}: p99 {} at {} of CPU, {} the fixed margins' fit there ({}): {side}",
        nanos(&p.p99),
        nanos(&p.cpu),
        ratio(&p.p99_to_frontier),
        nanos(&p.frontier_p99),
    )
}

/// Run B against run A on one figure: `p99 1.32x, p = 0.008 (worse)`, and where the runs'
/// rounds are too few for any verdict, so.
pub fn runs(c: &Comparison, confidence: f64) -> String {
    let ratio = c
        .ratio
        .map_or("–".to_string(), |r| format!("{}x", times(r)));
    let p = if c.exact {
        format!("p = {}", significant(c.p_value))
    } else {
        format!("p ≈ {}", significant(c.p_value))
    };
    let (a, b) = c.rounds;
    let verdict = if c.least_p > 1.0 - confidence {
        format!(
            "{a} + {b} rounds cannot show a difference at {}",
            percent(confidence)
        )
    } else {
        c.verdict.text().to_string()
    };
    format!("{} {ratio}, {p} ({verdict})", c.figure.label())
}

/// The footnote for a `*`: `* 5 rounds cannot make an interval 95% sure, at most 93.8%:
/// --repeat 6 or more for 95%`.
pub fn reach_note(rounds: usize, interval: &Interval) -> Option<String> {
    let reach = interval.reach?;
    let confidence = interval.confidence;
    Some(format!(
        "{SHORT} {rounds} rounds cannot make an interval {} sure, at most {}: --repeat {} or more for {}",
        percent(confidence),
        percent(reach),
        rounds_for(confidence),
        percent(confidence)
    ))
}

/// A share as a percentage, to the tenth where it has one: `95%`, `93.8%`.
pub fn percent(share: f64) -> String {
    let tenths = (share * 1000.0).round();
    if tenths % 10.0 == 0.0 {
        format!("{:.0}%", tenths / 10.0)
    } else {
        format!("{:.1}%", tenths / 10.0)
    }
}

fn mark(interval: &Interval) -> &'static str {
    if interval.reach.is_some() {
        SHORT
    } else {
        ""
    }
}

/// Three significant figures, no exponent: `131`, `8.10`, `0.999`, `1200`.
fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude == 0.0 || !magnitude.is_finite() {
        return format!("{value:.0}");
    }
    let decimals = decimals(magnitude, 3);
    // Rounding can carry into another digit (9.996 to 10.0): one decimal fewer then.
    let text = format!("{value:.decimals$}");
    let digits = text
        .trim_start_matches(['-', '0', '.'])
        .replace('.', "")
        .len();
    if digits > 3 && decimals > 0 {
        format!("{value:.prec$}", prec = decimals - 1)
    } else {
        text
    }
}

/// The decimals that give `value` (positive) `figures` significant figures.
fn decimals(value: f64, figures: i32) -> usize {
    if value <= 0.0 || !value.is_finite() {
        return 0;
    }
    (figures - 1 - value.log10().floor() as i32).clamp(0, 12) as usize
}

/// A ratio to read at a glance: two decimals below 2 (where 1.06 and 0.94 must differ from
/// 1), one below 10, whole numbers above; two significant figures below 0.1.
fn times(value: f64) -> String {
    match value.abs() {
        v if v < 0.1 => format!("{value:.prec$}", prec = decimals(v, 2)),
        v if v < 2.0 => format!("{value:.2}"),
        v if v < 10.0 => format!("{value:.1}"),
        _ => format!("{value:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::bootstrap::Interval;
    use super::super::figure::Figure;
    use super::*;

    fn estimate(value: f64, bounds: Option<(f64, f64)>, reach: Option<f64>) -> Estimate {
        Estimate {
            value,
            rounds: 5,
            interval: bounds.map(|(low, high)| Interval {
                low,
                high,
                confidence: 0.95,
                reach,
            }),
        }
    }

    fn r(figure: Figure, value: f64, low: f64, high: f64) -> Ratio {
        Ratio {
            figure,
            estimate: estimate(value, Some((low, high)), None),
            left_out: 0,
        }
    }

    #[test]
    fn a_cell_gives_the_bounds_in_the_figures_unit() {
        let e = estimate(158_000.0, Some((131_400.0, 190_200.0)), None);
        assert_eq!(nanos(&e), "158 µs [131–190]");
        let e = estimate(9_870.0, Some((8_100.0, 12_340.0)), None);
        assert_eq!(nanos(&e), "9.87 µs [8.10–12.3]");
        let e = estimate(1_000_000.0, Some((999_000.0, 1_200_000.0)), Some(0.9375));
        assert_eq!(nanos(&e), "1.00 ms [0.999–1.20]*");
        let e = estimate(62.0, Some((55.4, 999.0)), None);
        assert_eq!(nanos(&e), "62 ns [55–999]");
        let e = estimate(1_000.0, Some((10.4, 1_000.0)), None);
        assert_eq!(nanos(&e), "1.00 µs [0.010–1.00]");
        assert_eq!(nanos(&estimate(158_000.0, None, None)), "158 µs");
    }

    /// A bound a thousand units or more from the figure's, or under a hundredth of one,
    /// gives both bounds their units, never a run of digits.
    #[test]
    fn far_bounds_carry_their_units() {
        let e = estimate(199.0, Some((199.0, 238_975.0)), None);
        assert_eq!(nanos(&e), "199 ns [199 ns–239 µs]");
        let e = estimate(62.0, Some((55.4, 1_500.0)), None);
        assert_eq!(nanos(&e), "62 ns [55 ns–1.50 µs]");
        let e = estimate(5_020.0, Some((4_880.0, 244_000_000.0)), Some(0.9375));
        assert_eq!(nanos(&e), "5.02 µs [4.88 µs–244 ms]*");
        let e = estimate(1_000_000.0, Some((5_000.0, 1_200_000.0)), None);
        assert_eq!(nanos(&e), "1.00 ms [5.00 µs–1.20 ms]");
        let e = estimate(3_000.0, Some((0.0, 3_100.0)), None);
        assert_eq!(nanos(&e), "3.00 µs [0–3.10]");
    }

    #[test]
    fn a_byte_cell_is_whole_bytes() {
        let e = estimate(120.4, Some((-8.0, 124.6)), Some(0.75));
        assert_eq!(bytes(&e), "120 B [-8–125]*");
        assert_eq!(bytes(&estimate(96.0, None, None)), "96 B");
    }

    #[test]
    fn every_cell_fits_its_width() {
        let mut value: f64 = 1.0;
        while value < 3.6e12 {
            for (low, high) in [(0.999, 1.001), (0.5, 2.0), (0.9, 999.0), (0.01, 1.0)] {
                // Lateness saturates at an hour (`bench/stats.rs`).
                let high = (value * high).min(3.6e12);
                let e = estimate(value, Some((value * low, high)), Some(0.5));
                let cell = nanos(&e);
                assert!(cell.chars().count() <= CELL_WIDTH, "{cell}");
            }
            value *= 1.37;
        }
    }

    #[test]
    fn the_issues_comparison_line() {
        let ratios = [
            r(Figure::P50, 0.46, 0.41, 0.52),
            r(Figure::P99, 1.06, 0.81, 1.39),
            r(Figure::Cpu, 2.4, 2.2, 2.6),
        ];
        assert_eq!(
            comparison("hybrid", "spin_sleep", "1 ms", &ratios),
            "hybrid/spin_sleep at 1 ms: p50 0.46x [0.41–0.52], p99 1.06x [0.81–1.39] \
             (no difference shown), CPU 2.4x [2.2–2.6]"
        );
        let one = Ratio {
            figure: Figure::P99,
            estimate: estimate(1.3, None, None),
            left_out: 0,
        };
        assert_eq!(figure_ratio(&one), "p99 1.30x (one round: no interval)");
    }

    #[test]
    fn numbers_keep_three_figures_and_ratios_two_decimals_near_1() {
        assert_eq!(significant(9.996), "10.0");
        assert_eq!(significant(999.6), "1000");
        assert_eq!(significant(0.012_34), "0.0123");
        assert_eq!(significant(0.0), "0");
        assert_eq!(times(0.046), "0.046");
        assert_eq!(times(0.0), "0");
        assert_eq!(times(0.94), "0.94");
        assert_eq!(times(12.4), "12");
        assert_eq!(percent(0.95), "95%");
        assert_eq!(percent(0.9375), "93.8%");
    }

    #[test]
    fn the_footnote_of_a_short_interval() {
        let e = estimate(1.0, Some((1.0, 2.0)), Some(0.9375));
        assert_eq!(
            reach_note(5, &e.interval.unwrap()).unwrap(),
            "* 5 rounds cannot make an interval 95% sure, at most 93.8%: --repeat 6 or more for 95%"
        );
        let e = estimate(1.0, Some((1.0, 2.0)), None);
        assert_eq!(reach_note(8, &e.interval.unwrap()), None);
    }

    #[test]
    fn runs_say_when_their_rounds_are_too_few() {
        let c = Comparison {
            figure: Figure::P99,
            ratio: Some(1.32),
            p_value: 0.1,
            least_p: 0.1,
            exact: true,
            rounds: (3, 3),
            verdict: Verdict::NoDifferenceShown,
        };
        assert_eq!(
            runs(&c, 0.95),
            "p99 1.32x, p = 0.100 (3 + 3 rounds cannot show a difference at 95%)"
        );
        let c = Comparison {
            p_value: 0.007_94,
            least_p: 0.007_94,
            rounds: (5, 5),
            verdict: Verdict::Worse,
            ..c
        };
        assert_eq!(runs(&c, 0.95), "p99 1.32x, p = 0.00794 (worse)");
    }
}
