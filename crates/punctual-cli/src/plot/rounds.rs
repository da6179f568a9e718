//! Each method's p50 and p99 over the rounds of a run (`--repeat K`), with their intervals
//! as error bars: the methods across, lateness up a log axis; lower is better.

use plotters::prelude::*;

use super::{chart_on, Drawn, Marks, Panel};
use crate::units::format_nanos;

/// One figure over the rounds: its value and its interval's ends, in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct Bar {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// One method's figures over the rounds.
#[derive(Debug, Clone)]
pub struct Method {
    /// As the tables name it (`hybrid *`).
    pub name: String,
    pub colour: RGBColor,
    /// `(figure, the cell the tables print for it)`: p50 and p99, each where the export has
    /// its interval; the cell (`158 µs [131–190]`) is the hover text.
    pub p50: Option<(Bar, String)>,
    pub p99: Option<(Bar, String)>,
}

/// Draws `methods` into `panel`: each figure a dot (small for p50, large for p99) on an
/// error bar.
pub fn draw(panel: &Panel<'_>, methods: &[Method], marks: &mut Marks) -> Drawn {
    let bars = || methods.iter().flat_map(|m| [&m.p50, &m.p99]).flatten();
    let (least, most) = bars().fold((f64::MAX, 1.0f64), |(lo, hi), (b, _)| {
        (lo.min(b.low.min(b.value)), hi.max(b.high.max(b.value)))
    });
    let (least, most) = ((least.max(1.0)) / 2.0, most.max(10.0) * 2.0);
    let names: Vec<String> = methods.iter().map(|m| m.name.clone()).collect();
    let mut chart = chart_on(panel, None, 70).build_cartesian_2d(
        (0..methods.len()).into_segmented(),
        (least.max(0.5)..most).log_scale(),
    )?;
    chart
        .configure_mesh()
        .x_desc("method")
        .y_desc("lateness past the deadline (log axis)")
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|v| format_nanos(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    marks.begin(panel)?;
    for (i, method) in methods.iter().enumerate() {
        for (figure, radius, label) in [(&method.p50, 3, "p50"), (&method.p99, 5, "p99")] {
            let Some((bar, cell)) = figure else { continue };
            let at = |ns: f64| chart.backend_coord(&(SegmentValue::CenterOf(i), ns.max(1.0)));
            let title = format!("{}: {label} {cell}", method.name);
            marks.error_bar(at(bar.low), at(bar.high), method.colour, &title);
            marks.dot(at(bar.value), radius, method.colour, &title);
        }
    }
    Ok(())
}
