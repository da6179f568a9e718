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

use serde::Serialize;

use crate::bench::Report;
use crate::export::json;
use model::Export;

/// The page of a wait table's run.
pub fn bench_page(report: &Report, command: &[String]) -> anyhow::Result<String> {
    page::render(&Export::from_value(
        json::to_value(report, command)?,
        "the run",
    )?)
}

/// The page of a frontier or threads run, made from its export as the file holds it.
pub fn run_page(report: &impl Serialize, command: &[String]) -> anyhow::Result<String> {
    page::render(&Export::from_value(
        json::export_value(report, command)?,
        "the run",
    )?)
}
