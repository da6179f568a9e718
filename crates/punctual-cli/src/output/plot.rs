//! `--plot FILE.svg`: for each wait length, the share of waits that woke at most so late,
//! against lateness on a log axis (see `plot::cdf`), every step of each method's histogram.

use std::time::Duration;

use anyhow::anyhow;

use crate::bench::{Report, RunMode};
use crate::plot::{self, cdf};
use crate::units::wait_label;

const PANEL_HEIGHT: u32 = 440;
const WIDTH: u32 = 1100;

/// The SVG text of the plot.
pub fn render(report: &Report) -> anyhow::Result<String> {
    let mut waits: Vec<u64> = report.results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    if waits.is_empty() {
        return Err(anyhow!("nothing was measured, so there is nothing to plot"));
    }
    let mode = if report.run.mode == RunMode::Grid {
        "grid"
    } else {
        "single"
    };
    plot::svg(WIDTH, PANEL_HEIGHT, waits.len(), |i, panel, marks| {
        let wait = waits[i];
        let caption = format!(
            "wait {}: share of waits that woke at most this late ({mode} mode)",
            wait_label(Duration::from_nanos(wait))
        );
        cdf::draw(panel, Some(&caption), &curves(report, wait), marks)
    })
}

/// Each measured method at `wait`, coloured by its place among them.
fn curves(report: &Report, wait: u64) -> Vec<cdf::Curve> {
    report
        .results
        .iter()
        .zip(&report.histograms)
        .filter(|(r, _)| r.wait_ns == wait && r.summary.lateness.samples > 0)
        .enumerate()
        .map(|(i, (result, histogram))| {
            let total = histogram.len() as f64;
            let mut cumulative = 0u64;
            let mut points = vec![];
            for step in histogram.iter_recorded() {
                let at = step.value_iterated_to() as f64;
                if points.is_empty() {
                    points.push((at, 0.0));
                }
                cumulative += step.count_since_last_iteration();
                points.push((at, cumulative as f64 / total));
            }
            cdf::Curve {
                name: format!("{}{}", result.method, if result.ours { " *" } else { "" }),
                ours: result.ours,
                colour: plot::colour(i),
                points,
                figures: (&result.summary).into(),
            }
        })
        .collect()
}
