//! CPU against tail: CPU per wait across, p99 and p99.9 lateness up a log axis; lower left
//! is better. A sweep (one way of waiting at a range of settings, as `--frontier` measures)
//! is a line, thick through its p99s and thin through its p99.9s; any other method is a
//! cross at its p99 and a ring at its p99.9.

use plotters::prelude::*;

use super::{chart_on, Drawn, Figures, Marks, Panel};
use crate::units::format_nanos;

/// One method, or one setting of a sweep, at one wait.
#[derive(Debug, Clone)]
pub struct Point {
    /// As the tables name it (`hybrid *`, `fixed-margin 20us`).
    pub name: String,
    pub colour: RGBColor,
    pub figures: Figures,
    pub sweep: Option<Sweep>,
    /// The intervals of a run of rounds, drawn as error bars through the p99 mark.
    pub bounds: Option<Bounds>,
}

/// A point's intervals over rounds, `(low, high)` in nanoseconds, each where the export
/// has it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bounds {
    pub p99_ns: Option<(f64, f64)>,
    pub cpu_ns_per_wait: Option<(f64, f64)>,
    /// How sure the intervals are, as a share: the confidence asked, or where the rounds
    /// are too few for it, the most they support.
    pub sure: f64,
}

/// Where a point sits in a sweep.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The line's name in the legend; the points of one line share it (and the colour of
    /// its first point), in the order given.
    pub line: String,
    /// The setting, written beside the point (`20us`, `1ms (default)`).
    pub setting: String,
}

/// `(CPU per wait in ns, lateness in ns)`; a lateness under 1 ns plots at 1 ns.
fn at(figures: &Figures, lateness_ns: u64) -> (f64, f64) {
    (
        figures.cpu_ns_per_wait as f64,
        (lateness_ns as f64).max(1.0),
    )
}

/// Draws `points` into `panel`, under `caption` when there is one.
pub fn draw(
    panel: &Panel<'_>,
    caption: Option<&str>,
    points: &[Point],
    marks: &mut Marks,
) -> Drawn {
    let most_cpu = points
        .iter()
        .map(|p| p.figures.cpu_ns_per_wait as f64)
        .fold(1e3, f64::max);
    let (least, most) = points
        .iter()
        .flat_map(|p| [p.figures.p99_ns, p.figures.p999_ns])
        .fold((u64::MAX, 1), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // A decade of headroom above the highest point keeps the legend off the data.
    let (least, most) = ((least.max(1) as f64) / 2.0, most.max(10) as f64 * 20.0);
    let mut chart = chart_on(panel, caption, 70)
        .build_cartesian_2d(0f64..most_cpu * 1.08, (least.max(0.5)..most).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("CPU per wait (the measuring thread's CPU clock)")
        .y_desc("lateness past the deadline (log axis)")
        .x_label_formatter(&|v| format_nanos(*v))
        .y_label_formatter(&|v| format_nanos(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let mut sweeps: Vec<(&str, Vec<&Point>)> = Vec::new();
    for point in points {
        let Some(sweep) = &point.sweep else { continue };
        match sweeps.iter_mut().find(|(line, _)| *line == sweep.line) {
            Some((_, members)) => members.push(point),
            None => sweeps.push((&sweep.line, vec![point])),
        }
    }
    for (_, sweep) in &sweeps {
        for point in sweep {
            let xy = at(&point.figures, point.figures.p99_ns);
            let setting = point.sweep.as_ref().map_or("", |s| s.setting.as_str());
            chart.draw_series([Text::new(
                setting.to_string(),
                (xy.0, xy.1 * 1.25),
                ("sans-serif", 12).into_font().color(&point.colour),
            )])?;
        }
    }
    marks.begin(panel)?;
    for (line, sweep) in &sweeps {
        let colour = sweep[0].colour;
        let pixels = |lateness: fn(&Figures) -> u64| -> Vec<_> {
            sweep
                .iter()
                .map(|p| chart.backend_coord(&at(&p.figures, lateness(&p.figures))))
                .collect()
        };
        marks.line(
            &pixels(|f| f.p999_ns),
            colour,
            1,
            0.45,
            &format!("{line}: p99.9"),
        );
        marks.line(
            &pixels(|f| f.p99_ns),
            colour,
            3,
            1.0,
            &format!("{line}: p99"),
        );
        for (point, pixel) in sweep.iter().zip(pixels(|f| f.p99_ns)) {
            marks.dot(pixel, 4, colour, &point.figures.describe(&point.name));
        }
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
            .label(format!("{line}: p99.9"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.mix(0.45)));
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
            .label(format!("{line}: p99"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
            });
    }
    for point in points.iter().filter(|p| p.sweep.is_none()) {
        let f = &point.figures;
        marks.cross_and_ring(
            chart.backend_coord(&at(f, f.p99_ns)),
            chart.backend_coord(&at(f, f.p999_ns)),
            point.colour,
            &f.describe(&point.name),
        );
        if let Some(bounds) = point.bounds {
            let p99 = f.p99_ns as f64;
            let cpu = f.cpu_ns_per_wait as f64;
            let sure = crate::intervals::format::percent(bounds.sure);
            if let Some((low, high)) = bounds.p99_ns {
                marks.error_bar(
                    chart.backend_coord(&(cpu, low.max(1.0))),
                    chart.backend_coord(&(cpu, high.max(1.0))),
                    point.colour,
                    &format!(
                        "{}: p99 interval {}–{}, {sure} sure",
                        point.name,
                        format_nanos(low),
                        format_nanos(high)
                    ),
                );
            }
            if let Some((low, high)) = bounds.cpu_ns_per_wait {
                marks.error_bar(
                    chart.backend_coord(&(low, p99.max(1.0))),
                    chart.backend_coord(&(high, p99.max(1.0))),
                    point.colour,
                    &format!(
                        "{}: CPU per wait interval {}–{}, {sure} sure",
                        point.name,
                        format_nanos(low),
                        format_nanos(high)
                    ),
                );
            }
        }
        let colour = point.colour;
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
            .label(format!("{}: p99 (x), p99.9 (o)", point.name))
            .legend(move |(x, y)| Cross::new((x + 10, y), 6, colour.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
