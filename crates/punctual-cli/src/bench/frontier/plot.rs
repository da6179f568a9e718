//! `--frontier --plot FILE.svg`: one panel per wait, CPU per wait across, p99 lateness up
//! a log axis. The fixed-margin sweep is a line (the frontier: lower and further left is
//! better), spin_sleep's sweep a second line, the hybrid and `async-spin` marked points;
//! thin lines of the same colours show each sweep's p99.9.

use std::time::Duration;

use anyhow::anyhow;
use plotters::prelude::*;

use super::{Family, FrontierPoint, FrontierReport};
use crate::units::{format_nanos, wait_label};

const PANEL_HEIGHT: u32 = 520;
const WIDTH: u32 = 1100;

const FRONTIER: RGBColor = RGBColor(0, 114, 178);
const SPIN_SLEEP: RGBColor = RGBColor(213, 94, 0);
const HYBRID: RGBColor = RGBColor(0, 158, 115);
const ASYNC_SPIN: RGBColor = RGBColor(204, 121, 167);

/// The SVG text of the plot.
pub fn render(report: &FrontierReport) -> anyhow::Result<String> {
    let waits: Vec<u64> = report.run.waits.iter().map(|w| w.wait_ns).collect();
    if report.points.is_empty() {
        return Err(anyhow!("nothing was measured, so there is nothing to plot"));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, PANEL_HEIGHT * waits.len() as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        for (panel, &wait) in root.split_evenly((waits.len(), 1)).iter().zip(&waits) {
            let points: Vec<&FrontierPoint> =
                report.points.iter().filter(|p| p.wait_ns == wait).collect();
            draw_panel(panel, &points, wait).map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// `(CPU per wait in µs, lateness in ns)`; a lateness under 1 ns plots at 1 ns.
fn at(p: &FrontierPoint, lateness_ns: u64) -> (f64, f64) {
    (
        p.summary.cpu_ns_per_wait as f64 / 1e3,
        (lateness_ns as f64).max(1.0),
    )
}

fn draw_panel(
    panel: &Panel<'_>,
    points: &[&FrontierPoint],
    wait: u64,
) -> Result<(), Box<dyn std::error::Error>> {
    let measured: Vec<&FrontierPoint> = points
        .iter()
        .copied()
        .filter(|p| p.summary.lateness.samples > 0)
        .collect();
    let most_cpu = measured
        .iter()
        .map(|p| p.summary.cpu_ns_per_wait as f64 / 1e3)
        .fold(1.0, f64::max);
    let lateness = measured.iter().flat_map(|p| {
        let l = p.summary.lateness;
        [l.p99_ns, l.p999_ns]
    });
    let (least, most) = lateness.fold((u64::MAX, 1), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // A decade of headroom above the highest point keeps the legend off the data.
    let (least, most) = ((least.max(1) as f64) / 2.0, most.max(10) as f64 * 20.0);
    let mut chart = ChartBuilder::on(panel)
        .caption(
            format!(
                "wait {}: p99 lateness against CPU per wait (lower left is better)",
                wait_label(Duration::from_nanos(wait))
            ),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..most_cpu * 1.08, (least.max(0.5)..most).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("CPU per wait (µs, the measuring thread's CPU clock)")
        .y_desc("lateness past the deadline (log axis)")
        .x_label_formatter(&|v| format!("{v:.0} µs"))
        .y_label_formatter(&|v| format_nanos(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (family, colour, name) in [
        (
            Family::FixedMargin,
            FRONTIER,
            "native + fixed margin (the frontier)",
        ),
        (
            Family::SpinSleep,
            SPIN_SLEEP,
            "spin_sleep, by native accuracy",
        ),
    ] {
        let sweep: Vec<&FrontierPoint> = measured
            .iter()
            .copied()
            .filter(|p| p.family == family)
            .collect();
        let p99: Vec<(f64, f64)> = sweep
            .iter()
            .map(|p| at(p, p.summary.lateness.p99_ns))
            .collect();
        let p999: Vec<(f64, f64)> = sweep
            .iter()
            .map(|p| at(p, p.summary.lateness.p999_ns))
            .collect();
        chart
            .draw_series(LineSeries::new(p999, colour.mix(0.45).stroke_width(1)))?
            .label(format!("{name}: p99.9"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.mix(0.45)));
        chart
            .draw_series(LineSeries::new(p99.clone(), colour.stroke_width(3)))?
            .label(format!("{name}: p99"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
            });
        chart.draw_series(p99.iter().map(|&xy| Circle::new(xy, 4, colour.filled())))?;
        chart.draw_series(sweep.iter().zip(&p99).map(|(p, &xy)| {
            let text = match p.setting_ns {
                Some(ns) if p.default => {
                    format!("{} (default)", wait_label(Duration::from_nanos(ns)))
                }
                Some(ns) => wait_label(Duration::from_nanos(ns)),
                None => String::new(),
            };
            Text::new(
                text,
                (xy.0, xy.1 * 1.25),
                ("sans-serif", 12).into_font().color(&colour),
            )
        }))?;
    }
    for (family, colour) in [(Family::Hybrid, HYBRID), (Family::AsyncSpin, ASYNC_SPIN)] {
        for p in measured.iter().filter(|p| p.family == family) {
            let l = p.summary.lateness;
            let xy = at(p, l.p99_ns);
            chart
                .draw_series([Cross::new(xy, 9, colour.stroke_width(3))])?
                .label(format!(
                    "{}: p99 {} for {} CPU (x), p99.9 (o)",
                    p.label,
                    format_nanos(l.p99_ns as f64),
                    format_nanos(p.summary.cpu_ns_per_wait as f64)
                ))
                .legend(move |(x, y)| Cross::new((x + 10, y), 6, colour.stroke_width(3)));
            chart.draw_series([Circle::new(at(p, l.p999_ns), 6, colour.stroke_width(2))])?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
