//! The page's plots, drawn from an export's figures (so that a page made later from the
//! JSON file is the page the run made) by the plotter the `--plot` files use: each wait's
//! lateness distributions, and CPU against tail.

use plotters::style::RGBColor;

use super::model::Row;
use super::sections::name;
use crate::bench::frontier::plot as frontier;
use crate::intervals::format;
use crate::plot::{self, cdf, rounds, tail, Figures};

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 440;
/// A distribution plot grows past [`HEIGHT`] by this much per curve over ten, so that its
/// legend (one line a curve) keeps clear of most of the plot.
const HEIGHT_PER_CURVE: u32 = 22;

/// How wide a plot is drawn: the page's whole width, or half of it for a comparison's two
/// side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    Full,
    Half,
}

impl Width {
    fn pixels(self) -> u32 {
        match self {
            Width::Full => WIDTH,
            Width::Half => WIDTH * 3 / 5,
        }
    }
}

/// A row's p99 and CPU intervals, where it has them.
fn bounds(row: &Row) -> Option<tail::Bounds> {
    let over = row.over_rounds?;
    let ends = |b: Option<crate::bench::rounds::Bounded>| b.map(|b| (b.low, b.high));
    let any = over.p99_ns.or(over.cpu_ns_per_wait)?;
    Some(tail::Bounds {
        p99_ns: ends(over.p99_ns),
        cpu_ns_per_wait: ends(over.cpu_ns_per_wait),
        sure: any.reach.unwrap_or(any.confidence),
    })
}

fn figures(row: &Row) -> Figures {
    Figures {
        cpu_ns_per_wait: row.cpu_ns_per_wait,
        p50_ns: row.lateness.p50_ns,
        p99_ns: row.lateness.p99_ns,
        p999_ns: row.lateness.p999_ns,
    }
}

/// Each measured row with the colour both plots give it: a wait table's methods by their
/// place in the table, a frontier run's contenders by family (a sweep in shades).
fn coloured<'a>(rows: &[&'a Row]) -> Vec<(&'a Row, RGBColor)> {
    let families: Vec<_> = rows.iter().filter_map(|r| r.family).collect();
    let colours: Vec<RGBColor> = if families.len() == rows.len() {
        frontier::shades(&families)
    } else {
        (0..rows.len()).map(plot::colour).collect()
    };
    rows.iter()
        .copied()
        .zip(colours)
        .filter(|(r, _)| r.lateness.samples > 0)
        .collect()
}

/// The share of waits that woke at most so late, against lateness on a log axis, for every
/// row that has its distribution's points; `None` when none has.
pub fn cdf(rows: &[&Row], width: Width) -> anyhow::Result<Option<String>> {
    let curves: Vec<cdf::Curve> = coloured(rows)
        .into_iter()
        .filter(|(r, _)| !r.lateness_percentiles.is_empty())
        .map(|(row, colour)| cdf::Curve {
            name: name(row),
            ours: row.ours,
            colour,
            points: row
                .lateness_percentiles
                .iter()
                .map(|p| (p.lateness_ns as f64, p.percentile / 100.0))
                .collect(),
            figures: figures(row),
        })
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    let height = HEIGHT + HEIGHT_PER_CURVE * (curves.len().saturating_sub(10) as u32);
    plot::svg(width.pixels(), height, 1, |_, panel, marks| {
        cdf::draw(panel, None, &curves, marks)
    })
    .map(Some)
}

/// p99 and p99.9 against CPU per wait of every measured row: a frontier run's sweeps as
/// lines, anything else as marks; `None` when nothing was measured.
pub fn tail(rows: &[&Row], width: Width) -> anyhow::Result<Option<String>> {
    let points: Vec<tail::Point> = coloured(rows)
        .into_iter()
        .map(|(row, colour)| {
            let point = match row.family {
                Some(family) => frontier::point(
                    family,
                    &name(row),
                    row.setting_ns,
                    row.default,
                    figures(row),
                ),
                None => tail::Point {
                    name: name(row),
                    colour,
                    figures: figures(row),
                    sweep: None,
                    bounds: None,
                },
            };
            tail::Point {
                bounds: bounds(row),
                ..point
            }
        })
        .collect();
    if points.is_empty() {
        return Ok(None);
    }
    plot::svg(width.pixels(), HEIGHT, 1, |_, panel, marks| {
        tail::draw(panel, None, &points, marks)
    })
    .map(Some)
}

/// Each row's p50 and p99 over the rounds with their intervals; `None` when no row has an
/// interval (a run of one round).
pub fn over_rounds(rows: &[&Row], width: Width) -> anyhow::Result<Option<String>> {
    let methods: Vec<rounds::Method> = coloured(rows)
        .into_iter()
        .filter_map(|(row, colour)| {
            let over = row.over_rounds?;
            let bar = |b: Option<crate::bench::rounds::Bounded>| {
                b.map(|b| {
                    (
                        rounds::Bar {
                            value: b.value,
                            low: b.low,
                            high: b.high,
                        },
                        format::nanos(&b.estimate(over.rounds)),
                    )
                })
            };
            let (p50, p99) = (bar(over.p50_ns), bar(over.p99_ns));
            (p50.is_some() || p99.is_some()).then(|| rounds::Method {
                name: name(row),
                colour,
                p50,
                p99,
            })
        })
        .collect();
    if methods.is_empty() {
        return Ok(None);
    }
    plot::svg(width.pixels(), HEIGHT, 1, |_, panel, marks| {
        rounds::draw(panel, &methods, marks)
    })
    .map(Some)
}
