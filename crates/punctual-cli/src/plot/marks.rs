//! The data of a plot as SVG elements with a `<title>` each: its figures on hover.
//!
//! They must sit over the grid and under the legend, where plotters draws its own series.
//! So a panel draws a placeholder text where its data goes in the drawing order
//! ([`Marks::begin`]), and once the SVG is whole each placeholder is replaced by its data.

use std::fmt::Write;

use anyhow::bail;
use plotters::prelude::*;

use super::{Drawn, Panel};
use crate::markup::escape;

/// The data of every panel of one SVG, in panels' order.
#[derive(Debug, Default)]
pub struct Marks {
    layers: Vec<String>,
}

/// A point of the SVG, in pixels.
pub type Pixel = (i32, i32);

fn placeholder(layer: usize) -> String {
    format!("punctual-data-of-panel-{layer}")
}

fn hex(colour: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", colour.0, colour.1, colour.2)
}

impl Marks {
    /// Marks where the panel's data goes: after what the panel has drawn so far.
    pub fn begin(&mut self, panel: &Panel<'_>) -> Drawn {
        panel.draw(&Text::new(
            placeholder(self.layers.len()),
            (0, 0),
            ("sans-serif", 1),
        ))?;
        self.layers.push(String::new());
        Ok(())
    }

    fn layer(&mut self) -> &mut String {
        if self.layers.is_empty() {
            self.layers.push(String::new());
        }
        self.layers.last_mut().expect("a layer was just made")
    }

    /// A line through `points`.
    pub fn line(
        &mut self,
        points: &[Pixel],
        colour: RGBColor,
        width: u32,
        opacity: f64,
        title: &str,
    ) {
        let points: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
        let _ = writeln!(
            self.layer(),
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{width}\" opacity=\"{opacity}\" \
             points=\"{}\"><title>{}</title></polyline>",
            hex(colour),
            points.join(" "),
            escape(title)
        );
    }

    /// A filled dot.
    pub fn dot(&mut self, at: Pixel, radius: u32, colour: RGBColor, title: &str) {
        let _ = writeln!(
            self.layer(),
            "<circle cx=\"{}\" cy=\"{}\" r=\"{radius}\" fill=\"{}\"><title>{}</title></circle>",
            at.0,
            at.1,
            hex(colour),
            escape(title)
        );
    }

    /// A cross at `cross` and a ring at `ring`, joined by a faint line: one thing to hover.
    pub fn cross_and_ring(&mut self, cross: Pixel, ring: Pixel, colour: RGBColor, title: &str) {
        let (x, y, arm) = (cross.0, cross.1, 9);
        let _ = writeln!(
            self.layer(),
            "<g><title>{}</title><path fill=\"none\" stroke=\"{colour}\" stroke-width=\"1\" \
             opacity=\"0.45\" d=\"M {x} {y} L {} {}\"/><path fill=\"none\" stroke=\"{colour}\" \
             stroke-width=\"3\" d=\"M {} {} L {} {} M {} {} L {} {}\"/><circle cx=\"{}\" \
             cy=\"{}\" r=\"6\" fill=\"white\" fill-opacity=\"0\" stroke=\"{colour}\" \
             stroke-width=\"2\"/></g>",
            escape(title),
            ring.0,
            ring.1,
            x - arm,
            y - arm,
            x + arm,
            y + arm,
            x - arm,
            y + arm,
            x + arm,
            y - arm,
            ring.0,
            ring.1,
            colour = hex(colour),
        );
    }

    /// An interval as an error bar from `from` to `to` with a cap across each end: a
    /// `<g class="error-bar">`, so that a page's test can find it.
    pub fn error_bar(&mut self, from: Pixel, to: Pixel, colour: RGBColor, title: &str) {
        const CAP: i32 = 5;
        // The caps run across the bar: horizontal on a vertical bar, vertical on a horizontal.
        let (cx, cy) = if from.0 == to.0 { (CAP, 0) } else { (0, CAP) };
        let _ = writeln!(
            self.layer(),
            "<g class=\"error-bar\"><title>{}</title><path fill=\"none\" stroke=\"{}\" \
             stroke-width=\"1.5\" d=\"M {} {} L {} {} M {} {} L {} {} M {} {} L {} {}\"/></g>",
            escape(title),
            hex(colour),
            from.0,
            from.1,
            to.0,
            to.1,
            from.0 - cx,
            from.1 - cy,
            from.0 + cx,
            from.1 + cy,
            to.0 - cx,
            to.1 - cy,
            to.0 + cx,
            to.1 + cy,
        );
    }

    /// `svg` with each panel's placeholder replaced by its data.
    pub fn place(self, mut svg: String) -> anyhow::Result<String> {
        for (i, data) in self.layers.iter().enumerate() {
            let name = placeholder(i);
            let Some(at) = svg.find(&name) else {
                bail!("drawing a plot: panel {i}'s data has no place (a bug)");
            };
            let (Some(start), Some(end)) = (svg[..at].rfind("<text"), svg[at..].find("</text>"))
            else {
                bail!("drawing a plot: panel {i}'s placeholder is not a text (a bug)");
            };
            svg.replace_range(start..at + end + "</text>".len(), data.trim_end());
        }
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_panels_data_takes_its_placeholders_place() {
        let mut marks = Marks::default();
        let svg = crate::plot::svg(200, 100, 2, |i, panel, marks| {
            marks.begin(panel)?;
            marks.dot((i as i32, 5), 2, RED, &format!("panel {i} & <more>"));
            Ok(())
        })
        .unwrap();
        assert!(!svg.contains("punctual-data-of-panel"), "{svg}");
        let first = svg.find("panel 0 &amp; &lt;more&gt;").unwrap();
        let second = svg.find("panel 1 &amp;").unwrap();
        assert!(first < second);
        assert!(svg.contains("<circle cx=\"1\" cy=\"5\" r=\"2\" fill=\"#FF0000\">"));
        marks.line(
            &[(0, 0), (1, 1)],
            BLUE,
            2,
            1.0,
            "drawn before any panel began",
        );
        assert!(marks.place(svg).is_err(), "data with no place is an error");
    }
}
