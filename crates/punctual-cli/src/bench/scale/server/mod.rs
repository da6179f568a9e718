//! `punctual scale --workload server`: timeouts as a server sets them. A pending set of N
//! timeouts registered at once, then a steady churn of registrations a second for the
//! run's length; every timeout's length log-uniform from 1 ms to 60 s, nine in ten
//! cancelled at a uniform time before their deadline (the answer came first), the rest left
//! to fire. Registration and cancellation come from the runtime's workers: every worker of
//! a multi-thread runtime, or the one thread of a current-thread runtime.
//!
//! Each method runs in a fresh process of this binary (`--server-worker`), as the fire
//! workload's do, so that its resident memory and CPU are its own; [`mod@run`] plays the
//! schedule there, [`mock`] models it for `--mock-timer`. The timeouts of every method are
//! the same: [`plan`] draws them from one seed.
//!
//! Lock waits are punctual's alone: its drivers count each time a thread found the timers'
//! lock held (`DriverStats::lock_waits`); tokio's wheel locks are internal to it.

pub mod command;
pub mod mock;
mod pacer;
pub mod plan;
mod report;
pub mod run;
mod task;

pub use report::{DriverSleeps, ServerReport, ServerResult, ServerRun};

use super::{pool, repeats, round_order, round_seed};
use crate::bench::method::MethodSpec;
use crate::bench::session::RunContext;
use crate::bench::RunMode;
use crate::intervals::bootstrap::Settings;
use crate::intervals::format;
use crate::output::progress::Progress;
use plan::Plan;
use run::ServerArgs;

/// A checked `punctual scale --workload server` invocation.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Methods with a server part, in table order.
    pub methods: Vec<&'static MethodSpec>,
    pub plan: Plan,
    /// Workers of the multi-thread runtime.
    pub workers: u64,
    /// Rounds of a fresh process of every method (`--repeat`); 1 for a run as it always was.
    pub repeat: u64,
    /// How the intervals over rounds are computed.
    pub intervals: Settings,
}

/// Runs every method under the server workload, each in a worker process.
pub fn run(options: &ServerOptions, context: &RunContext) -> anyhow::Result<ServerReport> {
    let mut progress = Progress::steps(
        options.methods.len() * options.repeat as usize,
        context.backend,
    );
    let mut rounds = vec![Vec::new(); options.methods.len()];
    let mut step = 0;
    'rounds: for round in 0..options.repeat {
        for i in round_order(options.methods.len(), round) {
            let spec = options.methods[i];
            progress.label(match options.repeat {
                1 => format!("server workload · {}", spec.name),
                k => format!(
                    "server workload · round {} of {k} · {}",
                    round + 1,
                    spec.name
                ),
            });
            // The same timeouts for every method in a round.
            let args = ServerArgs {
                method: spec,
                plan: options.plan,
                workers: options.workers,
                seed: round_seed(context.seed, round),
            };
            let result = match context.backend.server(&args) {
                Ok(result) => result,
                // A Ctrl-C that came while the worker was being started can end it before
                // it leaves the console's process group: the run stops there, keeping what
                // the rounds before it measured.
                Err(_) if context.interrupted() => break 'rounds,
                Err(error) => return Err(error),
            };
            rounds[i].push(result);
            progress.advance(step, 1.0);
            step += 1;
            if context.interrupted() {
                break 'rounds;
            }
        }
    }
    let results: Vec<ServerResult> = rounds
        .into_iter()
        .filter_map(|rounds| pool::server(rounds, &options.intervals))
        .collect();
    progress.finish();
    let mut notes = context.notes();
    notes.extend(caveats(&results, options.plan.churn_per_s));
    notes.extend(paired(&results, &options.intervals));
    Ok(ServerReport {
        schema_version: crate::export::SCHEMA_VERSION,
        environment: context.environment.clone(),
        run: ServerRun {
            mode: RunMode::Server,
            pending: options.plan.pending,
            churn_per_s: options.plan.churn_per_s,
            duration_ns: options.plan.duration.as_nanos() as u64,
            workers: options.workers,
            shortest_ns: plan::SHORTEST.as_nanos() as u64,
            longest_ns: plan::LONGEST.as_nanos() as u64,
            cancelled_share: plan::CANCELLED_SHARE,
            load: context.load,
            load_threads: context.load_threads,
            interrupted: context.interrupted(),
        },
        results,
        notes,
        command: context.command.clone(),
    })
}

/// What the figures leave out, said once beside them.
fn caveats(results: &[ServerResult], churn_per_s: u64) -> Vec<String> {
    let mut notes = vec![
        format!(
            "registration and cancellation lags include the pacer's step of {}: the pacer thread spawns each timeout's task when due and aborts it when its cancellation is",
            crate::units::format_duration(pacer::PACER_STEP)
        ),
        "lock waits: punctual's drivers count them, beside their native sleeps; tokio's timer exposes none".to_string(),
    ];
    // Each native sleep of a driver thread is an OS wait and a wake-up; how often they
    // happen, beside the driver's CPU, says what that CPU goes on.
    for r in results {
        if let (Some(sleeps), Some(cpu_ns)) = (r.driver_sleeps, r.driver_cpu_ns_per_timer) {
            // The driver's CPU a second, over its sleeps a second: what one sleep and the
            // work of the wake-up after it cost.
            let per_sleep_ns =
                (sleeps.per_s >= 1.0).then(|| cpu_ns as f64 * churn_per_s as f64 / sleeps.per_s);
            notes.push(format!(
                "{} ({}): its driver threads slept natively {:.0} times a second during the churn, {:.0} of them cut short by a registration due sooner; {} of driver CPU per sleep and wake-up; {:.0} lock waits a second",
                r.method,
                r.runtime,
                sleeps.per_s,
                sleeps.interrupted_per_s,
                per_sleep_ns.map_or_else(
                    || "-".to_string(),
                    |ns| crate::units::format_duration(std::time::Duration::from_nanos(ns as u64))
                ),
                sleeps.lock_waits_per_s,
            ));
        }
    }
    if results.iter().any(|r| !r.ours) {
        notes.push(
            "tokio's timer has no thread of its own: its wheel runs on the runtime's workers, so its driver CPU is `-` and its whole cost is in the process's".to_string(),
        );
    }
    notes
}

/// With rounds, each of ours against the tokio method on the same runtime, from the rounds
/// they shared.
fn paired(results: &[ServerResult], settings: &Settings) -> Vec<String> {
    let mut lines = Vec::new();
    for r in results.iter().filter(|r| r.ours && !r.repeats.is_empty()) {
        let Some(peer) = results.iter().find(|p| !p.ours && p.runtime == r.runtime) else {
            continue;
        };
        let ratios = repeats::ratios(&r.repeats, &peer.repeats, settings);
        if !ratios.is_empty() {
            let figures: Vec<String> = ratios.iter().map(format::figure_ratio).collect();
            lines.push(format!(
                "{}/{} on the {} runtime: {}",
                r.method,
                peer.method,
                r.runtime,
                figures.join(", ")
            ));
        } else if r.repeats.len() != peer.repeats.len() {
            let at = format!("the {} runtime", r.runtime);
            lines.push(super::unpaired(
                &r.method,
                &peer.method,
                &at,
                r.repeats.len(),
                peer.repeats.len(),
            ));
        }
    }
    lines
}
