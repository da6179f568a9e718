//! Where a bench run's results go: the table on standard output (unless an export takes
//! it), the exports, the plot, the HTML page. Every file is checked before anything is
//! measured; after the run each output is written even when another fails, and each failure
//! is reported.

use std::path::Path;

use super::file::{gather_listed, Destination, OutputFile};
use super::stdio;
use crate::bench::session::BenchMode;

/// The outputs a run was asked for, as the command line named them (`-`: standard output).
#[derive(Debug, Default, Clone, Copy)]
pub struct Outputs<'a> {
    pub json: Option<&'a Path>,
    pub csv: Option<&'a Path>,
    pub markdown: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub page: Option<&'a Path>,
}

/// An export a mode renders as bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Export {
    Json,
    Csv,
    Markdown,
}

/// The outputs of one run, checked.
#[derive(Debug)]
pub struct Destinations {
    table_to_stdout: bool,
    exports: Vec<(Export, Destination)>,
    plot: Option<OutputFile>,
    page: Option<OutputFile>,
}

impl Destinations {
    /// Checks every output named; the first that cannot be written is the error.
    pub fn check(outputs: Outputs) -> anyhow::Result<Destinations> {
        let exports = [
            (Export::Json, outputs.json),
            (Export::Csv, outputs.csv),
            (Export::Markdown, outputs.markdown),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.map(|p| (format, p)))
        .map(|(format, path)| Ok((format, Destination::check(path, "")?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
        let plot = outputs
            .plot
            .map(|path| OutputFile::check(path, "the plot to "))
            .transpose()?;
        let page = outputs
            .page
            .map(|path| OutputFile::check(path, "the report to "))
            .transpose()?;
        Ok(Destinations {
            table_to_stdout: !exports
                .iter()
                .any(|(_, d)| matches!(d, Destination::Stdout)),
            exports,
            plot,
            page,
        })
    }

    /// Writes the table and every export, plot and page, each whatever became of the
    /// others; reports each failure on standard error and returns whether all were written.
    pub fn write<M: BenchMode>(&self, mode: &M, report: &M::Report) -> bool {
        let mut written = true;
        let mut outcome = |result: anyhow::Result<()>| {
            if let Err(error) = result {
                stdio::report(&error);
                written = false;
            }
        };
        if self.table_to_stdout {
            outcome(stdio::print(&mode.table(report)));
        }
        for (format, destination) in &self.exports {
            let bytes = match format {
                Export::Json => mode.json(report),
                Export::Csv => mode.csv(report),
                Export::Markdown => mode.markdown(report),
            };
            outcome(bytes.and_then(|bytes| destination.write(&bytes)));
        }
        let listed = [
            self.plot
                .as_ref()
                .map(|plot| plot.write_listed(mode.plot(report), "plot")),
            self.page
                .as_ref()
                .map(|page| page.write_listed(mode.page(report), "report")),
        ];
        let (mut listing, mut failed) = (String::new(), Vec::new());
        gather_listed(listed, self.table_to_stdout, &mut listing, &mut failed);
        failed.into_iter().for_each(|error| outcome(Err(error)));
        if !listing.is_empty() {
            outcome(stdio::print(&listing));
        }
        written
    }
}
