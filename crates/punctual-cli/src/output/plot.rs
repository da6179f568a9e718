//! `--plot FILE.svg`: for each wait length, the share of waits that woke at most so late,
//! against lateness on a log axis. A method whose curve rises further left wakes closer to
//! its deadline; where a curve reaches 0.99 is its p99.

use std::time::Duration;

use anyhow::anyhow;
use plotters::prelude::*;

use crate::bench::Report;
use crate::units::{format_nanos, wait_label};

const PANEL_HEIGHT: u32 = 440;
const WIDTH: u32 = 1100;

/// Colours a reader can tell apart, ours first.
pub const COLOURS: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(100, 100, 100),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
    RGBColor(150, 75, 0),
];

/// The SVG text of the plot.
pub fn render(report: &Report) -> anyhow::Result<String> {
    let mut waits: Vec<u64> = report.results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    if waits.is_empty() {
        return Err(anyhow!("nothing was measured, so there is nothing to plot"));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, PANEL_HEIGHT * waits.len() as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        for (panel, &wait) in root.split_evenly((waits.len(), 1)).iter().zip(&waits) {
            draw_panel(panel, report, wait).map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_panel(
    panel: &Panel<'_>,
    report: &Report,
    wait: u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let rows: Vec<_> = report
        .results
        .iter()
        .zip(&report.histograms)
        .filter(|(r, _)| r.wait_ns == wait && r.summary.lateness.samples > 0)
        .collect();
    let most = rows
        .iter()
        .map(|(r, _)| r.summary.lateness.max_ns)
        .max()
        .unwrap_or(1)
        .max(10) as f64;
    let mut chart = ChartBuilder::on(panel)
        .caption(
            format!(
                "wait {}: share of waits that woke at most this late ({} mode)",
                wait_label(Duration::from_nanos(wait)),
                if report.run.mode == crate::bench::RunMode::Grid {
                    "grid"
                } else {
                    "single"
                }
            ),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((1f64..most * 1.5).log_scale(), 0f64..1.0)?;
    chart
        .configure_mesh()
        .x_desc("lateness past the deadline (log axis; 1 ns or less plots at 1 ns)")
        .y_desc("share of waits")
        .x_label_formatter(&|v| format_nanos(*v))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, (result, histogram)) in rows.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let total = histogram.len() as f64;
        let mut cumulative = 0u64;
        let mut points = vec![];
        for step in histogram.iter_recorded() {
            let at = (step.value_iterated_to() as f64).max(1.0);
            if points.is_empty() {
                points.push((at, 0.0));
            }
            cumulative += step.count_since_last_iteration();
            points.push((at, cumulative as f64 / total));
        }
        let width = if result.ours { 3 } else { 2 };
        let label = format!(
            "{}{}: p50 {}, p99 {}",
            result.method,
            if result.ours { " *" } else { "" },
            format_nanos(result.summary.lateness.p50_ns as f64),
            format_nanos(result.summary.lateness.p99_ns as f64)
        );
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(width)))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(width))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
