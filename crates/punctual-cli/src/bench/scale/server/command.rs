//! `punctual scale --workload server` from the command line to its outputs, as a
//! [`BenchMode`], and the hidden worker side (`--server-worker METHOD`).

use std::process::ExitCode;
use std::time::Duration;

use super::plan::Plan;
use super::run::{self, ServerArgs};
use super::{ServerOptions, ServerReport};
use crate::bench::backend;
use crate::bench::method::{MethodSpec, ScaleRuntime};
use crate::bench::registry;
use crate::bench::scale::process;
use crate::bench::session::{self, BenchMode, Outputs, RunContext};
use crate::cli::{MethodList, ScaleArgs};
use crate::output::stdio;
use crate::usage;

/// Timeouts pending at once before the churn, unless `--pending` says.
pub const DEFAULT_PENDING: u64 = 1_000_000;
/// Registrations a second, unless `--churn` says.
pub const DEFAULT_CHURN: u64 = 100_000;
/// The most timeouts one method's run may make, the pending set and the churn's together:
/// each has its record (and, pending, its task) for the whole run.
pub const MAX_TIMEOUTS: u64 = 100_000_000;
/// How long the churn runs per method, unless `--duration` says.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(10);

impl BenchMode for ServerOptions {
    type Report = ServerReport;

    fn run(&self, context: &RunContext) -> anyhow::Result<ServerReport> {
        super::run(self, context)
    }

    fn table(&self, report: &ServerReport) -> String {
        crate::output::server::render(report)
    }

    fn page(&self, _report: &ServerReport) -> anyhow::Result<String> {
        anyhow::bail!("the server workload has no HTML page yet")
    }
}

pub fn command(args: &ScaleArgs, command: &[String]) -> anyhow::Result<ExitCode> {
    let conflict =
        |message: String| usage::error(clap::error::ErrorKind::ArgumentConflict, message);
    if args.timers.is_some() {
        conflict("--workload server takes no N,...: its timeouts are --pending and --churn".into());
    }
    for (flag, given) in [
        ("--export-csv", args.export_csv.is_some()),
        ("--export-markdown", args.export_markdown.is_some()),
        ("--report", args.report.is_some()),
        ("--export-timers", args.export_timers.is_some()),
        ("--samples", args.samples.is_some()),
        ("--rounds", args.rounds.is_some()),
    ] {
        if given {
            conflict(format!(
                "{flag} is for the fire workload; --workload server has the table and --export-json"
            ));
        }
    }
    let outputs = Outputs {
        json: args.export_json.as_deref(),
        ..Outputs::default()
    };
    usage::check_run(&args.run, outputs, None);
    let methods = methods(&args.methods)
        .unwrap_or_else(|message| usage::error(clap::error::ErrorKind::ValueValidation, message));
    let plan = plan(args);
    if plan.total() > MAX_TIMEOUTS {
        usage::error(
            clap::error::ErrorKind::ValueValidation,
            format!(
                "{} pending and {} a second for {} make {} timeouts: at most {MAX_TIMEOUTS} (each takes memory for the whole run)",
                plan.pending,
                plan.churn_per_s,
                crate::units::format_duration(plan.duration),
                plan.total()
            ),
        );
    }
    let backend = backend::chosen(args.run.mock_timer);
    let mode = ServerOptions {
        methods,
        plan,
        workers: args.workers.unwrap_or_else(|| backend.cpus()),
        repeat: args.repeat,
        intervals: super::super::command::intervals(args),
    };
    session::execute(&mode, backend, &args.run, outputs, command)
}

fn plan(args: &ScaleArgs) -> Plan {
    Plan {
        pending: args.pending.unwrap_or(DEFAULT_PENDING),
        churn_per_s: args.churn.unwrap_or(DEFAULT_CHURN),
        duration: args.duration.unwrap_or(DEFAULT_DURATION),
    }
}

/// The methods with a server part among those `--methods` named; for `all`, every one.
pub fn methods(list: &MethodList) -> Result<Vec<&'static MethodSpec>, String> {
    let mut methods: Vec<&'static MethodSpec> = if list.all {
        registry::server_methods().collect()
    } else {
        list.specs
            .iter()
            .chain(&list.scale_only)
            .map(|&spec| {
                has_server(spec).then_some(spec).ok_or_else(|| {
                    format!(
                        "`{}` has no server workload (it has: {}, or all)",
                        spec.name,
                        registry::server_names()
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    sort(&mut methods);
    Ok(methods)
}

/// The methods with a server part, current-thread ones first, each runtime's in table order.
fn sort(methods: &mut [&'static MethodSpec]) {
    methods.sort_by_key(|spec| {
        (
            spec.scale
                .is_some_and(|scale| scale.runtime == ScaleRuntime::MultiThread),
            registry::position(spec),
        )
    });
}

fn has_server(spec: &MethodSpec) -> bool {
    spec.scale.is_some_and(|scale| scale.server)
}

/// The hidden worker side: one method under the server workload, as JSON on stdout.
pub fn worker(method: &str, args: &ScaleArgs) -> anyhow::Result<()> {
    let spec = registry::find(method)
        .filter(|spec| has_server(spec))
        .ok_or_else(|| anyhow::anyhow!("no server workload for `{method}`"))?;
    // The parent says when to stop (see `bench::scale::process`).
    process::stop_when_input_ends();
    let result = run::run(&ServerArgs {
        method: spec,
        plan: plan(args),
        // The parent always says how many (see `process::server`).
        workers: args
            .workers
            .ok_or_else(|| anyhow::anyhow!("a server worker needs --workers"))?,
        seed: args.server_seed,
    })?;
    stdio::print(&format!("{}\n", serde_json::to_string(&result)?))
}
