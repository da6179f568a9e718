//! `punctual report RESULTS.json [OTHER.json] -o FILE.html`: the page of a saved export, or
//! of two compared. The page's path is checked before any export is read.

use std::path::Path;

use anyhow::Context;

use super::model::Export;
use super::{compare, page};
use crate::cli::ReportArgs;
use crate::intervals::bootstrap::{Settings, DEFAULT_CONFIDENCE};
use crate::output::file::OutputFile;
use crate::usage;

pub fn command(args: &ReportArgs) -> anyhow::Result<()> {
    let output = OutputFile::check(&args.output, "the report to ")?;
    let settings = match (args.confidence, args.exports.len()) {
        (Some(_), 1) => usage::error(
            clap::error::ErrorKind::ArgumentConflict,
            "--confidence is for comparing two exports: one export's page shows the intervals its run computed".to_string(),
        ),
        (confidence, _) => Settings::new(confidence.unwrap_or(DEFAULT_CONFIDENCE))
            .unwrap_or_else(|message| usage::error(clap::error::ErrorKind::ValueValidation, message)),
    };
    let exports = args
        .exports
        .iter()
        .map(|path| read(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let html = match exports.as_slice() {
        [one] => page::render(one)?,
        [a, b] => compare::render(
            a,
            b,
            [&shown(&args.exports[0]), &shown(&args.exports[1])],
            &settings,
        )?,
        _ => unreachable!("clap takes one or two exports"),
    };
    output.write(html.as_bytes())
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn read(path: &Path) -> anyhow::Result<Export> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", shown(path)))?;
    let value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", shown(path)))?;
    Export::from_value(value, &shown(path))
}
