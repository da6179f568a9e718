//! The page's plots, drawn from an export's figures (so that a page made later from the
//! JSON file is the page the run made): each wait's lateness distribution, and a frontier
//! run's CPU against tail.

use anyhow::anyhow;
use plotters::prelude::*;

use super::model::Row;
use crate::output::plot::COLOURS;
use crate::units::format_nanos;

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 440;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw(
    width: u32,
    paint: impl FnOnce(&Area<'_>) -> Result<(), Box<dyn std::error::Error>>,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        paint(&root).map_err(|e| anyhow!("drawing a plot: {e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

/// The share of waits that woke at most so late, against lateness on a log axis, for every
/// row that has its distribution's points; `None` when none has. `narrow` draws it for half
/// the page's width, as the comparison sets two side by side.
pub fn cdf(rows: &[&Row], narrow: bool) -> anyhow::Result<Option<String>> {
    let drawn: Vec<(usize, &Row)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.lateness_percentiles.is_empty())
        .map(|(i, r)| (i, *r))
        .collect();
    if drawn.is_empty() {
        return Ok(None);
    }
    let most = drawn
        .iter()
        .flat_map(|(_, r)| r.lateness_percentiles.iter().map(|p| p.lateness_ns))
        .max()
        .unwrap_or(1)
        .max(10) as f64;
    let width = if narrow { WIDTH * 3 / 5 } else { WIDTH };
    draw(width, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d((1f64..most * 1.5).log_scale(), 0f64..1.0)?;
        chart
            .configure_mesh()
            .x_desc("lateness past the deadline (log axis)")
            .y_desc("share of waits")
            .x_label_formatter(&|v| format_nanos(*v))
            .y_label_formatter(&|v| format!("{v:.2}"))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (i, row) in drawn {
            let colour = COLOURS[i % COLOURS.len()];
            let width = if row.ours { 3 } else { 2 };
            let points = row
                .lateness_percentiles
                .iter()
                .map(|p| ((p.lateness_ns as f64).max(1.0), p.percentile / 100.0));
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(width)))?
                .label(format!(
                    "{}{}: p99 {}",
                    row.method,
                    if row.ours { " *" } else { "" },
                    format_nanos(row.p99_ns as f64)
                ))
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
    })
    .map(Some)
}

const SWEEPS: [(&str, RGBColor, &str); 2] = [
    (
        "fixed-margin",
        COLOURS[0],
        "native + fixed margin (the frontier)",
    ),
    ("spin-sleep", COLOURS[1], "spin_sleep, by native accuracy"),
];
const ADAPTIVE: [(&str, RGBColor); 2] = [("hybrid", COLOURS[2]), ("async-spin", COLOURS[3])];

/// `(CPU per wait in µs, lateness in ns)`; a lateness under 1 ns plots at 1 ns.
fn at(row: &Row, lateness_ns: u64) -> (f64, f64) {
    (
        row.cpu_ns_per_wait as f64 / 1e3,
        (lateness_ns as f64).max(1.0),
    )
}

/// A frontier run at one wait: p99 (thick) and p99.9 (thin) against CPU per wait, the two
/// sweeps as lines, the adaptive methods as crosses (p99) and rings (p99.9).
pub fn frontier(rows: &[&Row], narrow: bool) -> anyhow::Result<String> {
    let measured: Vec<&Row> = rows.iter().copied().filter(|r| r.samples > 0).collect();
    let most_cpu = measured
        .iter()
        .map(|r| r.cpu_ns_per_wait as f64 / 1e3)
        .fold(1.0, f64::max);
    let (least, most) = measured
        .iter()
        .flat_map(|r| [r.p99_ns, r.p999_ns])
        .fold((u64::MAX, 1), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (least, most) = ((least.max(1) as f64) / 2.0, most.max(10) as f64 * 2.0);
    let width = if narrow { WIDTH * 3 / 5 } else { WIDTH };
    draw(width, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..most_cpu * 1.08, (least.max(0.5)..most).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("CPU per wait (µs)")
            .y_desc("lateness (log axis)")
            .x_label_formatter(&|v| format!("{v:.0} µs"))
            .y_label_formatter(&|v| format_nanos(*v))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (family, colour, name) in SWEEPS {
            let sweep: Vec<&Row> = measured
                .iter()
                .copied()
                .filter(|r| r.family.as_deref() == Some(family))
                .collect();
            let p99: Vec<(f64, f64)> = sweep.iter().map(|r| at(r, r.p99_ns)).collect();
            let p999: Vec<(f64, f64)> = sweep.iter().map(|r| at(r, r.p999_ns)).collect();
            chart
                .draw_series(LineSeries::new(p999, colour.mix(0.45).stroke_width(1)))?
                .label(format!("{name}: p99.9"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.mix(0.45))
                });
            chart
                .draw_series(LineSeries::new(p99.clone(), colour.stroke_width(3)))?
                .label(format!("{name}: p99"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
                });
            chart.draw_series(p99.iter().map(|&xy| Circle::new(xy, 4, colour.filled())))?;
        }
        for (family, colour) in ADAPTIVE {
            for row in measured
                .iter()
                .filter(|r| r.family.as_deref() == Some(family))
            {
                chart
                    .draw_series([Cross::new(at(row, row.p99_ns), 9, colour.stroke_width(3))])?
                    .label(format!("{}: p99 (x), p99.9 (o)", row.method))
                    .legend(move |(x, y)| Cross::new((x + 10, y), 6, colour.stroke_width(3)));
                chart.draw_series([Circle::new(
                    at(row, row.p999_ns),
                    6,
                    colour.stroke_width(2),
                )])?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })
}
