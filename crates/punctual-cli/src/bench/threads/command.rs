//! `punctual threads N` from the command line to its outputs, as a [`BenchMode`].

use std::process::ExitCode;

use super::{run, ThreadsOptions, ThreadsReport, DEFAULT_METHODS, DEFAULT_RANGE};
use crate::bench::backend;
use crate::bench::session::{self, BenchMode, Outputs, RunContext};
use crate::cli::ThreadsArgs;
use crate::intervals::bootstrap;
use crate::usage;

impl BenchMode for ThreadsOptions {
    type Report = ThreadsReport;

    fn run(&self, context: &RunContext) -> anyhow::Result<ThreadsReport> {
        run(self, context)
    }

    fn table(&self, report: &ThreadsReport) -> String {
        crate::output::threads::render(report)
    }

    fn page(&self, report: &ThreadsReport) -> anyhow::Result<String> {
        crate::report::threads_page(report)
    }
}

pub fn command(args: &ThreadsArgs, command: &[String]) -> anyhow::Result<ExitCode> {
    let outputs = Outputs {
        json: args.export_json.as_deref(),
        page: args.report.as_deref(),
        ..Outputs::default()
    };
    usage::check_run(&args.run, outputs, None);
    if !args.methods.scale_only.is_empty() {
        usage::error(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "`{}` is measured only in the scale mode, not with --threads",
                args.methods
                    .scale_only
                    .iter()
                    .map(|spec| spec.name)
                    .collect::<Vec<_>>()
                    .join("`, `")
            ),
        );
    }
    let mode = ThreadsOptions {
        methods: if args.methods.all {
            DEFAULT_METHODS.to_vec()
        } else {
            args.methods.specs.clone()
        },
        threads: args.threads as usize,
        range: args.wait_range.unwrap_or(DEFAULT_RANGE),
        duration: args.duration,
        rounds: args.repeat,
        intervals: bootstrap::Settings::new(args.confidence).unwrap_or_else(|message| {
            usage::error(clap::error::ErrorKind::ValueValidation, message)
        }),
    };
    session::execute(
        &mode,
        backend::chosen(args.run.mock_timer),
        &args.run,
        outputs,
        command,
    )
}
