//! The lateness distribution: for each method, the share of waits that woke at most so
//! late, against lateness on a log axis. A curve that rises further left wakes closer to its
//! deadline; where it reaches 0.99 is its p99.

use plotters::prelude::*;

use super::{chart_on, Drawn, Figures, Marks, Panel};
use crate::units::format_nanos;

/// One method's distribution.
#[derive(Debug, Clone)]
pub struct Curve {
    /// The method as the tables name it (`hybrid *`).
    pub name: String,
    /// punctual's own are drawn thicker.
    pub ours: bool,
    pub colour: RGBColor,
    /// `(lateness in ns, share of waits from 0 to 1)`, rising.
    pub points: Vec<(f64, f64)>,
    pub figures: Figures,
}

/// Draws `curves` into `panel`, under `caption` when there is one.
pub fn draw(
    panel: &Panel<'_>,
    caption: Option<&str>,
    curves: &[Curve],
    marks: &mut Marks,
) -> Drawn {
    let most = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.0))
        .fold(10.0, f64::max);
    let mut chart = chart_on(panel, caption, 60)
        .build_cartesian_2d((1f64..most * 1.5).log_scale(), 0f64..1.0)?;
    chart
        .configure_mesh()
        .x_desc("lateness past the deadline (log axis; 1 ns or less plots at 1 ns)")
        .y_desc("share of waits")
        .x_label_formatter(&|v| format_nanos(*v))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    marks.begin(panel)?;
    for curve in curves {
        let width = if curve.ours { 3 } else { 2 };
        let pixels: Vec<_> = curve
            .points
            .iter()
            .map(|&(late, share)| chart.backend_coord(&(late.max(1.0), share)))
            .collect();
        marks.line(
            &pixels,
            curve.colour,
            width,
            1.0,
            &curve.figures.describe(&curve.name),
        );
        let colour = curve.colour;
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
            .label(format!(
                "{}: p50 {}, p99 {}",
                curve.name,
                format_nanos(curve.figures.p50_ns as f64),
                format_nanos(curve.figures.p99_ns as f64)
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
}
