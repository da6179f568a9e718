//! `--frontier --plot FILE.svg`: one panel per wait of CPU against tail (see `plot::tail`).
//! The fixed-margin sweep is a line (the frontier: lower and further left is better),
//! spin_sleep's sweep a second line, the hybrid and `async-spin` marked points. The page of
//! a frontier run draws its contenders with [`point`] and [`shades`] too.

use std::time::Duration;

use anyhow::anyhow;
use plotters::style::RGBColor;

use super::{Family, FrontierReport};
use crate::plot::{self, tail, Figures};
use crate::units::wait_label;

const PANEL_HEIGHT: u32 = 520;
const WIDTH: u32 = 1100;

/// The SVG text of the plot.
pub fn render(report: &FrontierReport) -> anyhow::Result<String> {
    let waits: Vec<u64> = report.run.waits.iter().map(|w| w.wait_ns).collect();
    if report.points.is_empty() {
        return Err(anyhow!("nothing was measured, so there is nothing to plot"));
    }
    plot::svg(WIDTH, PANEL_HEIGHT, waits.len(), |i, panel, marks| {
        let wait = waits[i];
        let points: Vec<tail::Point> = report
            .points
            .iter()
            .filter(|p| p.wait_ns == wait && p.summary.lateness.samples > 0)
            .map(|p| {
                point(
                    p.family,
                    &p.label,
                    p.setting_ns,
                    p.default,
                    (&p.summary).into(),
                )
            })
            .collect();
        let caption = format!(
            "wait {}: p99 lateness against CPU per wait (lower left is better)",
            wait_label(Duration::from_nanos(wait))
        );
        tail::draw(panel, Some(&caption), &points, marks)
    })
}

/// Each family's colour: the sweeps' lines, the adaptive methods' marks.
pub fn colour(family: Family) -> RGBColor {
    plot::colour(match family {
        Family::FixedMargin => 0,
        Family::SpinSleep => 1,
        Family::Hybrid => 2,
        Family::AsyncSpin => 3,
    })
}

/// `family`'s colour for the `i`th of `n` of its settings, palest for the smallest: a
/// sweep's distributions in shades of its line's colour.
fn shade(family: Family, i: usize, n: usize) -> RGBColor {
    let RGBColor(r, g, b) = colour(family);
    let pale = if n > 1 {
        0.65 * (n - 1 - i) as f64 / (n - 1) as f64
    } else {
        0.0
    };
    let towards_white = |c: u8| (c as f64 + (255.0 - c as f64) * pale).round() as u8;
    RGBColor(towards_white(r), towards_white(g), towards_white(b))
}

/// A contender on the CPU/tail plot: the sweeps' settings on their lines, the adaptive
/// methods on their own.
pub fn point(
    family: Family,
    name: &str,
    setting_ns: Option<u64>,
    default: bool,
    figures: Figures,
) -> tail::Point {
    let line = match family {
        Family::FixedMargin => Some("native + fixed margin (the frontier)"),
        Family::SpinSleep => Some("spin_sleep, by native accuracy"),
        Family::Hybrid | Family::AsyncSpin => None,
    };
    let setting = |ns| {
        let label = wait_label(Duration::from_nanos(ns));
        if default {
            format!("{label} (default)")
        } else {
            label
        }
    };
    tail::Point {
        name: name.to_string(),
        colour: colour(family),
        figures,
        sweep: line.map(|line| tail::Sweep {
            line: line.to_string(),
            setting: setting_ns.map_or(String::new(), setting),
        }),
        bounds: None,
    }
}

/// The colour of each of `families` (a wait's contenders, in order) on the distribution plot.
pub fn shades(families: &[Family]) -> Vec<RGBColor> {
    families
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let n = families.iter().filter(|g| *g == f).count();
            let nth = families[..i].iter().filter(|g| *g == f).count();
            shade(*f, nth, n)
        })
        .collect()
}
