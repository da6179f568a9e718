//! `punctual bench` from the command line to its outputs: the usage checks clap cannot
//! make, `--list-methods`, the wait table as a [`BenchMode`], and the deprecated flags that
//! still start the other modes (`--frontier`, `--threads N`, `--scale N,...`).

use std::process::ExitCode;

use super::backend;
use super::method::MethodSpec;
use super::registry;
use super::session::{self, BenchMode, Outputs, RunContext};
use super::{frontier, scale, threads, BenchOptions, Report, Stop};
use crate::cli::{BenchArgs, TableFormat};
use crate::export;
use crate::intervals::bootstrap::Settings;
use crate::output::stdio;
use crate::usage;

/// The wait table: every method at every wait, in turns.
pub struct WaitTable {
    pub options: BenchOptions,
    /// What the table on standard output looks like.
    pub format: TableFormat,
}

impl BenchMode for WaitTable {
    type Report = Report;

    fn run(&self, context: &RunContext) -> anyhow::Result<Report> {
        super::run(&self.options, context)
    }

    fn warmup(&self) -> u64 {
        self.options.warmup
    }

    fn table(&self, report: &Report) -> String {
        match self.format {
            TableFormat::Table => crate::output::table::render_with(
                report,
                &super::rounds::comparisons(
                    &report.results,
                    self.options.compare,
                    &self.options.intervals,
                ),
            ),
            TableFormat::Timetest => crate::output::timetest::render(report),
            TableFormat::DeadlineSleep => crate::output::deadline_sleep::render(report),
        }
    }

    fn page(&self, report: &Report) -> anyhow::Result<String> {
        crate::report::bench_page(report)
    }

    fn csv(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        export::csv::export(report)
    }

    fn markdown(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        export::markdown::export(report)
    }

    fn plot(&self, report: &Report) -> anyhow::Result<String> {
        crate::output::plot::render(report)
    }
}

pub fn command(args: BenchArgs, command: &[String]) -> anyhow::Result<ExitCode> {
    if let Err(message) = usage::check_bench(&args) {
        usage::error(clap::error::ErrorKind::ArgumentConflict, message);
    }
    if args.list_methods {
        stdio::print(&registry::listing())?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.frontier {
        deprecated("--frontier", "punctual frontier");
        return frontier::command::command(&args.as_frontier(), command);
    }
    if let Some(threads) = args.threads {
        deprecated("--threads N", "punctual threads N");
        return threads::command::command(&args.as_threads(threads), command);
    }
    if let Some(timers) = &args.scale {
        deprecated("--scale N,...", "punctual scale N,...");
        return scale::command::command(&args.as_scale(timers.clone()), command);
    }
    if !args.methods.scale_only.is_empty() {
        usage::error(
            clap::error::ErrorKind::ValueValidation,
            format!(
                "`{}` is measured only in the scale mode: run `punctual scale N,...`",
                names(&args.methods.scale_only).join("`, `")
            ),
        );
    }
    if let Some(pair) = args.compare {
        for spec in [pair.first, pair.second] {
            if !args.methods.specs.iter().any(|m| m.name == spec.name) {
                usage::error(
                    clap::error::ErrorKind::ValueValidation,
                    format!(
                        "--compare names `{}`, which --methods does not measure",
                        spec.name
                    ),
                );
            }
        }
    }
    let mode = WaitTable {
        options: BenchOptions {
            methods: args.methods.specs.clone(),
            waits: args.waits.clone(),
            stop: args
                .samples
                .map_or(Stop::Duration(args.duration), Stop::Samples),
            warmup: args.warmup,
            mode: args.mode,
            phase: args.phase,
            rounds: args.repeat,
            intervals: Settings::new(args.confidence).unwrap_or_else(|message| {
                usage::error(clap::error::ErrorKind::ValueValidation, message)
            }),
            compare: args.compare,
        },
        format: args.format,
    };
    let outputs = Outputs {
        json: args.export_json.as_deref(),
        csv: args.export_csv.as_deref(),
        markdown: args.export_markdown.as_deref(),
        plot: args.plot.as_deref(),
        page: args.report.as_deref(),
    };
    usage::check_run(&args.run, outputs, None);
    session::execute(
        &mode,
        backend::chosen(args.run.mock_timer),
        &args.run,
        outputs,
        command,
    )
}

/// The note a deprecated flag prints on standard error: it still works, for one release.
fn deprecated(flag: &str, instead: &str) {
    stdio::eprint(&format!(
        "note: `punctual bench {flag}` is deprecated and goes in the next release: run `{instead}`\n"
    ));
}

fn names(specs: &[&MethodSpec]) -> Vec<&'static str> {
    specs.iter().map(|spec| spec.name).collect()
}
