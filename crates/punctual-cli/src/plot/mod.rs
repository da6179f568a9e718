//! The plots, drawn once for every output that shows them: the `--plot` SVG files of a wait
//! table and of a `--frontier` run, and the HTML page of `--report` and `punctual report`.
//! Callers turn their results into [`cdf::Curve`]s and [`tail::Point`]s; this module owns the
//! look (axes, colours, markers, legends) and the hover text.
//!
//! plotters draws the axes and the legend. The data it does not draw: every curve and marker
//! is written here as an SVG element carrying a `<title>` with its figures, which a browser
//! shows on hover and a screen reader reads (plotters' SVG backend has no way to attach one).

pub mod cdf;
mod marks;
pub mod rounds;
pub mod tail;

use anyhow::anyhow;
use plotters::prelude::*;

pub use marks::Marks;

use crate::units::format_nanos;

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

/// The `i`th of [`COLOURS`], round again past the last.
pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

pub type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

type Drawn = Result<(), Box<dyn std::error::Error>>;

/// A chart on `panel` as every plot here sets one up: `caption` above it when there is one,
/// a 12 px margin, an x axis label area of 45 px and a y axis one `y_label_area` px wide.
fn chart_on<'a, 'b>(
    panel: &'a Panel<'b>,
    caption: Option<&str>,
    y_label_area: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(panel);
    if let Some(caption) = caption {
        builder.caption(caption, ("sans-serif", 20));
    }
    builder
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(y_label_area);
    builder
}

/// The figures a reader looks for on a plot, given on hover and in the tables under it.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub cpu_ns_per_wait: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
}

impl Figures {
    /// `name: CPU per wait …, p50 …, p99 …, p99.9 …`, the hover text of a curve or point.
    pub fn describe(&self, name: &str) -> String {
        format!(
            "{name}: CPU per wait {}, p50 {}, p99 {}, p99.9 {}",
            format_nanos(self.cpu_ns_per_wait as f64),
            format_nanos(self.p50_ns as f64),
            format_nanos(self.p99_ns as f64),
            format_nanos(self.p999_ns as f64)
        )
    }
}

/// An SVG of `panels` panels of `width` by `panel_height`, stacked; `paint` draws the
/// `i`th into its area, its data into the [`Marks`] it is given.
pub fn svg(
    width: u32,
    panel_height: u32,
    panels: usize,
    mut paint: impl FnMut(usize, &Panel<'_>, &mut Marks) -> Drawn,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    let mut marks = Marks::default();
    {
        let root = SVGBackend::with_string(&mut svg, (width, panel_height * panels as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        for (i, panel) in root.split_evenly((panels, 1)).iter().enumerate() {
            paint(i, panel, &mut marks).map_err(|e| anyhow!("drawing a plot: {e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    marks.place(svg)
}

impl From<&crate::bench::stats::Summary> for Figures {
    fn from(summary: &crate::bench::stats::Summary) -> Figures {
        Figures {
            cpu_ns_per_wait: summary.cpu_ns_per_wait,
            p50_ns: summary.lateness.p50_ns,
            p99_ns: summary.lateness.p99_ns,
            p999_ns: summary.lateness.p999_ns,
        }
    }
}
