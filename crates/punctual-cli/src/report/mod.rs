//! `punctual bench --report FILE.html` and `punctual report`: one self-contained HTML page
//! of a run (no script, no font, no request; the plots inline SVG), readable on a phone and
//! printable, or of two runs side by side.
//!
//! Every page is made from the JSON export, read back: the page a run writes is the page
//! `punctual report` later makes of that run's `--export-json` file.

pub mod command;
mod compare;
mod figures;
mod html;
mod model;
mod page;
mod parts;
mod plots;
mod sections;

use crate::bench::frontier::FrontierReport;
use crate::bench::threads::ThreadsReport;
use crate::bench::Report;
use model::Export;

/// The page of a wait table's or a scale run.
pub fn bench_page(report: &Report) -> anyhow::Result<String> {
    page::render(&Export::of_table(report))
}

/// The page of a frontier run.
pub fn frontier_page(report: &FrontierReport) -> anyhow::Result<String> {
    page::render(&Export::of_frontier(report))
}

/// The page of a threads run.
pub fn threads_page(report: &ThreadsReport) -> anyhow::Result<String> {
    page::render(&Export::of_threads(report))
}
