//! Where `punctual bench`'s results go: the table on standard output (unless an export
//! takes it), the exports, the plot, the HTML report. Every file is checked before anything is measured; after
//! the run each output is written even when another fails, and each failure is reported.

use super::file::{gather_listed, Destination, OutputFile};
use super::stdio;
use crate::bench::Report;
use crate::cli::{BenchArgs, TableFormat};
use crate::export::ExportFormat;

/// The outputs of one run, checked.
#[derive(Debug)]
pub struct Destinations {
    table_to_stdout: bool,
    format: TableFormat,
    exports: Vec<(ExportFormat, Destination)>,
    plot: Option<OutputFile>,
    report: Option<OutputFile>,
}

impl Destinations {
    /// Checks every output `args` names; the first that cannot be written is the error.
    pub fn check(args: &BenchArgs) -> anyhow::Result<Destinations> {
        let exports = [
            (ExportFormat::Json, &args.export_json),
            (ExportFormat::Csv, &args.export_csv),
            (ExportFormat::Markdown, &args.export_markdown),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.as_deref().map(|p| (format, p)))
        .map(|(format, path)| Ok((format, Destination::check(path, "")?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
        let plot = args
            .plot
            .as_deref()
            .map(|path| OutputFile::check(path, "the plot to "))
            .transpose()?;
        let report = args
            .report
            .as_deref()
            .map(|path| OutputFile::check(path, "the report to "))
            .transpose()?;
        Ok(Destinations {
            table_to_stdout: !exports
                .iter()
                .any(|(_, d)| matches!(d, Destination::Stdout)),
            format: args.format,
            exports,
            plot,
            report,
        })
    }

    /// Writes the table and every export and plot, each whatever became of the others;
    /// reports each failure on standard error and returns whether all were written.
    pub fn write(&self, report: &Report) -> bool {
        let mut written = true;
        let mut outcome = |result: anyhow::Result<()>| {
            if let Err(error) = result {
                stdio::report(&error);
                written = false;
            }
        };
        if self.table_to_stdout {
            outcome(stdio::print(&match self.format {
                TableFormat::Table => super::table::render(report),
                TableFormat::Timetest => super::timetest::render(report),
                TableFormat::DeadlineSleep => super::deadline_sleep::render(report),
            }));
        }
        for (format, destination) in &self.exports {
            outcome(
                format
                    .serialize(report)
                    .and_then(|bytes| destination.write(&bytes)),
            );
        }
        let listed = [
            self.plot
                .as_ref()
                .map(|plot| plot.write_listed(super::plot::render(report), "plot")),
            self.report
                .as_ref()
                .map(|page| page.write_listed(crate::report::bench_page(report), "report")),
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
