//! `punctual scale N,...` from the command line to its outputs, as a [`BenchMode`]: which
//! methods `--methods` gave it, and the hidden worker side (`--fire-worker METHOD`).

use std::process::ExitCode;

use super::process;
use super::worker::{self, WorkerArgs};
use super::ScaleOptions;
use crate::bench::backend;
use crate::bench::method::MethodSpec;
use crate::bench::registry;
use crate::bench::session::{self, BenchMode, Outputs, RunContext};
use crate::bench::Report;
use crate::cli::{MethodList, ScaleArgs, Workload};
use crate::export;
use crate::intervals::bootstrap::Settings;
use crate::output::stdio;
use crate::usage;

impl BenchMode for ScaleOptions {
    type Report = Report;

    fn run(&self, context: &RunContext) -> anyhow::Result<Report> {
        super::run(self, context)
    }

    fn table(&self, report: &Report) -> String {
        crate::output::table::render(report)
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
}

pub fn command(args: &ScaleArgs, command: &[String]) -> anyhow::Result<ExitCode> {
    if let Some(method) = &args.fire_worker {
        if args.workload != Workload::Fire {
            anyhow::bail!("--fire-worker needs the fire workload");
        }
        worker(method, args)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(method) = &args.server_worker {
        if args.workload != Workload::Server {
            anyhow::bail!("--server-worker needs --workload server");
        }
        super::server::command::worker(method, args)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.workload == Workload::Server {
        return super::server::command::command(args, command);
    }
    for (flag, given) in [
        ("--pending", args.pending.is_some()),
        ("--churn", args.churn.is_some()),
        ("--duration", args.duration.is_some()),
        ("--workers", args.workers.is_some()),
    ] {
        if given {
            usage::error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("{flag} is for --workload server; the fire workload takes N,..."),
            );
        }
    }
    let Some(timers) = &args.timers else {
        usage::error(
            clap::error::ErrorKind::MissingRequiredArgument,
            "the fire workload needs N,...: the numbers of timers pending at once (e.g. `punctual scale 1,1000,100000`), or give --workload server".to_string(),
        );
    };
    let outputs = Outputs {
        json: args.export_json.as_deref(),
        csv: args.export_csv.as_deref(),
        markdown: args.export_markdown.as_deref(),
        page: args.report.as_deref(),
        ..Outputs::default()
    };
    usage::check_run(&args.run, outputs, args.export_timers.as_deref());
    if args.repeat > 1 && args.export_timers.is_some() {
        usage::error(
            clap::error::ErrorKind::ArgumentConflict,
            "--export-timers takes a run of one round: its rows number the rounds of N inside one process, which --repeat would repeat".to_string(),
        );
    }
    let methods = methods(&args.methods)
        .unwrap_or_else(|message| usage::error(clap::error::ErrorKind::ValueValidation, message));
    let mode = ScaleOptions {
        methods,
        timers: timers.clone(),
        samples: args.samples.unwrap_or(DEFAULT_SAMPLES),
        rounds: args.rounds.unwrap_or(1),
        export_timers: args.export_timers.clone(),
        repeat: args.repeat,
        intervals: intervals(args),
    };
    session::execute(
        &mode,
        backend::chosen(args.run.mock_timer),
        &args.run,
        outputs,
        command,
    )
}

/// The intervals of `--repeat`, at `--confidence`.
pub fn intervals(args: &ScaleArgs) -> Settings {
    Settings::new(args.confidence)
        .unwrap_or_else(|message| usage::error(clap::error::ErrorKind::ValueValidation, message))
}

/// Timers per method and N the scale mode measures at least, unless `--samples` says.
pub const DEFAULT_SAMPLES: u64 = 100;

/// The scale mode's methods among those `--methods` named, in table order: for `all`, those
/// on a current-thread runtime.
pub fn methods(list: &MethodList) -> Result<Vec<&'static MethodSpec>, String> {
    if list.all {
        return Ok(registry::default_scale_methods().collect());
    }
    let mut methods = list
        .specs
        .iter()
        .chain(&list.scale_only)
        .map(|&spec| {
            spec.scale.is_some().then_some(spec).ok_or_else(|| {
                format!(
                    "`{}` has no scale mode (in the scale mode: {}, or all)",
                    spec.name,
                    registry::scale_names()
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    methods.sort_by_key(|spec| registry::position(spec));
    Ok(methods)
}

/// The hidden worker side of the fire workload: one method at one N, as JSON on stdout.
fn worker(method: &str, args: &ScaleArgs) -> anyhow::Result<()> {
    let spec = registry::find(method)
        .filter(|spec| spec.scale.is_some())
        .ok_or_else(|| anyhow::anyhow!("no scale method `{method}`"))?;
    let timers = args.timers.as_deref().unwrap_or_default();
    let [timers] = timers else {
        anyhow::bail!("a fire worker measures one N, not {timers:?}");
    };
    // The parent says when to stop (see `bench::scale::process`).
    process::stop_when_input_ends();
    let result = worker::run(&WorkerArgs {
        method: spec,
        timers: *timers,
        samples: args.samples.unwrap_or(DEFAULT_SAMPLES),
        rounds: args.rounds.unwrap_or(1),
        seed: args.fire_seed,
        export_timers: args.export_timers.clone(),
    })?;
    stdio::print(&format!("{}\n", serde_json::to_string(&result)?))
}
