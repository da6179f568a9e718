//! The page's frame and the few pieces every section is built of, by plain string building:
//! a page is a handful of tables and figures, which a template engine would not shorten.

use std::fmt::Write;

pub use crate::markup::escape;

/// No script, no font, no request: the page is whole in one file. Tables scroll sideways
/// inside their box on a narrow screen; plots shrink to the width; print keeps the colours
/// and does not split a table or a figure across pages.
const STYLE: &str = "
:root { color-scheme: light; --line: #d0d4da; --soft: #f3f5f7; --ink: #1b1f24; --muted: #57606a; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
p, li { max-width: 50rem; }
.recommendation { font-size: 1.1rem; background: #eaf4ea; border-left: 4px solid #2f7d32; padding: .6rem .8rem; }
.warnings { background: #fff4e5; border-left: 4px solid #c76b00; padding: .5rem .8rem .5rem 2rem; }
.muted, figcaption { color: var(--muted); font-size: .9rem; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .4rem 0 1rem; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: .25rem .55rem; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
table.facts td { text-align: left; white-space: normal; min-width: 8rem; }
thead th { background: var(--soft); }
tr.ours td:first-child { font-weight: 600; }
td.worse { background: #fde2e1; color: #8a1c14; }
td.better { background: #ddf3e0; color: #14632a; }
td.differs { background: #fff4e5; }
figure { margin: .5rem 0; }
svg.plot { display: block; width: 100%; min-width: 36rem; height: auto; max-width: 1100px; border: 1px solid var(--line); }
.pair > div { min-width: 0; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); gap: 1rem; }
pre { background: var(--soft); padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
@media (max-width: 40rem) { body { padding: .6rem; font-size: 14px; } th, td { padding: .2rem .35rem; } }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .scroll { overflow: visible; }
  figure, table { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  svg.plot { max-width: 100%; min-width: 0; border: none; }
}
";

/// The whole page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// A table in a box that scrolls sideways when it is wider than the screen.
pub struct Table {
    class: &'static str,
    head: Vec<String>,
    rows: Vec<(Option<&'static str>, Vec<Cell>)>,
}

/// One cell: its text (escaped when the table is written) and a class.
pub struct Cell {
    pub text: String,
    pub class: Option<&'static str>,
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell { text, class: None }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_string())
    }
}

impl Table {
    pub fn new(class: &'static str, head: &[&str]) -> Table {
        Table {
            class,
            head: head.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// A row; `class` marks it (`ours`).
    pub fn row(&mut self, class: Option<&'static str>, cells: Vec<Cell>) {
        self.rows.push((class, cells));
    }

    pub fn render(&self) -> String {
        let mut out = format!("<div class=\"scroll\"><table class=\"{}\">\n", self.class);
        if !self.head.is_empty() {
            out.push_str("<thead><tr>");
            for h in &self.head {
                let _ = write!(out, "<th scope=\"col\">{}</th>", escape(h));
            }
            out.push_str("</tr></thead>\n");
        }
        out.push_str("<tbody>\n");
        for (class, cells) in &self.rows {
            match class {
                Some(c) => {
                    let _ = write!(out, "<tr class=\"{c}\">");
                }
                None => out.push_str("<tr>"),
            }
            for cell in cells {
                match cell.class {
                    Some(c) => {
                        let _ = write!(out, "<td class=\"{c}\">{}</td>", escape(&cell.text));
                    }
                    None => {
                        let _ = write!(out, "<td>{}</td>", escape(&cell.text));
                    }
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
        out
    }
}

/// An SVG from plotters, made to fit the page: its XML prologue dropped, a class for the CSS
/// and a label for screen readers. On a phone it keeps a legible width and scrolls sideways.
pub fn figure(svg: &str, label: &str, caption: &str) -> String {
    let start = svg.find("<svg").unwrap_or(0);
    let svg = svg[start..].replacen(
        "<svg ",
        &format!(
            "<svg class=\"plot\" role=\"img\" aria-label=\"{}\" ",
            escape(label)
        ),
        1,
    );
    format!(
        "<figure>\n<div class=\"scroll\">\n{}\n</div>\n<figcaption>{}</figcaption>\n</figure>\n",
        svg.trim_end(),
        escape(caption)
    )
}
