//! `punctual frontier` from the command line to its outputs, as a [`BenchMode`].

use std::process::ExitCode;

use super::{plot, run, FrontierOptions, FrontierReport};
use crate::bench::backend;
use crate::bench::session::{self, BenchMode, Outputs, RunContext};
use crate::cli::FrontierArgs;
use crate::intervals::bootstrap;
use crate::usage;

impl BenchMode for FrontierOptions {
    type Report = FrontierReport;

    fn run(&self, context: &RunContext) -> anyhow::Result<FrontierReport> {
        run(self, context)
    }

    fn warmup(&self) -> u64 {
        self.warmup
    }

    fn table(&self, report: &FrontierReport) -> String {
        crate::output::frontier::render(report, &self.intervals)
    }

    fn page(&self, report: &FrontierReport) -> anyhow::Result<String> {
        crate::report::frontier_page(report)
    }

    fn plot(&self, report: &FrontierReport) -> anyhow::Result<String> {
        plot::render(report)
    }
}

pub fn command(args: &FrontierArgs, command: &[String]) -> anyhow::Result<ExitCode> {
    let outputs = Outputs {
        json: args.export_json.as_deref(),
        plot: args.plot.as_deref(),
        page: args.report.as_deref(),
        ..Outputs::default()
    };
    usage::check_run(&args.run, outputs, None);
    let mode = FrontierOptions {
        waits: args.waits.clone(),
        samples: args.samples,
        warmup: args.warmup,
        phase: args.phase,
        rounds: args
            .repeat
            .unwrap_or(bootstrap::rounds_for(bootstrap::DEFAULT_CONFIDENCE) as u64),
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
