//! `punctual threads N --wait-range MIN..MAX`: many sleepers at once. For each
//! method, N threads each sleep waits drawn at random from the range, all together, for
//! `--duration`; the methods take turns in slices of a second at most, so that whatever
//! else the machine does falls on all of them alike. With more threads than cores, this
//! shows what spinning costs when spinners preempt each other: how many sleeps each
//! method completed, how many cores it used, how late it woke, and how often the hybrid's
//! margin hit its CPU cap.

pub mod command;
mod crew;

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::backend::Backend;
use super::load::LoadKind;
use super::method::{MethodSpec, SpinCounts};
use super::methods;
use super::rounds::{round_of, OverRounds};
use super::session::RunContext;
use super::stats::{Lateness, Recorder};
use super::RunMode;
use crate::environment::Environment;
use crate::export::json::{percentiles, PercentilePoint};
use crate::export::SCHEMA_VERSION;
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::Round;
use crate::output::progress::Progress;
use crate::sys::{self, Platform};
use crew::Crew;

/// The waits `--wait-range` allows, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitRange {
    pub min: Duration,
    pub max: Duration,
}

/// What `--wait-range` means when it is not given: short sleeps, where more sleepers than
/// cores oversubscribe the machine.
pub const DEFAULT_RANGE: WaitRange = WaitRange {
    min: Duration::from_micros(100),
    max: Duration::from_millis(2),
};

/// The methods measured when `--methods` does not name them.
pub const DEFAULT_METHODS: [&MethodSpec; 3] = [
    &methods::native::SPEC,
    &methods::hybrid::SPEC,
    &methods::spin_sleep::SPEC,
];

/// The longest turn a method's crew gets before the next method's.
const SLICE: Duration = Duration::from_secs(1);

/// A checked `punctual threads` invocation.
#[derive(Debug, Clone)]
pub struct ThreadsOptions {
    pub methods: Vec<&'static MethodSpec>,
    pub threads: usize,
    pub range: WaitRange,
    /// Measuring time per method (per round).
    pub duration: Duration,
    /// Rounds of every crew's `duration` (`--repeat`).
    pub rounds: u64,
    /// How the intervals over rounds are computed.
    pub intervals: Settings,
}

/// How the run was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadsRun {
    /// Always `threads`.
    pub mode: RunMode,
    /// Threads per method, all sleeping at once.
    pub threads: usize,
    /// The shortest wait drawn.
    pub wait_min_ns: u64,
    /// The longest wait drawn.
    pub wait_max_ns: u64,
    /// Measuring time per method (per round, with `--repeat`).
    pub duration_per_method_ns: u64,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads ran.
    pub load_threads: usize,
    /// Whether Ctrl-C stopped the run before it measured all it was asked to: each
    /// method's figures are then those of the slices it ran until then.
    #[serde(default)]
    pub interrupted: bool,
}

/// One method's crew over the run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadsResult {
    /// The method's name, as `--methods` takes it.
    pub method: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// Lateness of every completed sleep of every thread; `samples` is the sleeps
    /// completed.
    #[serde(flatten)]
    pub lateness: Lateness,
    /// Wall time the crew ran.
    pub wall_ns: u64,
    /// The process's CPU time over the wall time: cores used (all threads, the idle ones
    /// of other crews too, and any load threads).
    pub cores: f64,
    /// The crew's own threads' CPU time (and their helpers') over the wall time.
    pub thread_cores: f64,
    /// Sleeps that ended in a spin, for methods with a learned spin tail.
    pub spun: Option<u64>,
    /// Sleeps whose margin hit the CPU cap (the budget cut it short).
    pub capped: Option<u64>,
    /// Sleeps done natively all the way, no recent oversleep fitting in the budget.
    pub native_only: Option<u64>,
    /// The points of its lateness distribution, as a wait table's results carry them.
    #[serde(default)]
    pub lateness_percentiles: Vec<PercentilePoint>,
    /// Each round's figures (`--repeat K`, K from 2; absent for one round): its sleeps'
    /// lateness, and the crew's own CPU time (its threads' and their helpers', as `own`)
    /// in the round over the sleeps it completed. Exports from before the CPU was read per
    /// round have 0 there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
    /// The figures over the rounds with their intervals (`cpu_ns_per_wait` the mean over
    /// every round's sleeps; `null` in exports from before it was read per round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_rounds: Option<OverRounds>,
}

/// Everything a threads run produced: its JSON export is this struct, written and read
/// back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadsReport {
    /// See [`crate::export::SCHEMA_VERSION`]; 0 in an export from before it was written.
    #[serde(default)]
    pub schema_version: u32,
    pub environment: Environment,
    pub run: ThreadsRun,
    pub results: Vec<ThreadsResult>,
    /// Anything that degraded the run.
    pub notes: Vec<String>,
    /// The command line that made the run, the program as `punctual`.
    #[serde(default)]
    pub command: Vec<String>,
}

/// Per method: CPU and wall time summed over its slices.
#[derive(Debug, Default, Clone, Copy)]
struct Account {
    wall: Duration,
    process_cpu: Duration,
}

/// Runs every method's crew in turns.
pub fn run(options: &ThreadsOptions, context: &RunContext) -> anyhow::Result<ThreadsReport> {
    let backend = context.backend;
    let mock = backend.is_mock();
    let crews = options
        .methods
        .iter()
        .map(|&spec| Crew::start(spec, options.threads, options.range, context.seed, backend))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut accounts = vec![Account::default(); crews.len()];
    let mut recorders = vec![Recorder::default(); crews.len()];
    let slices = options
        .duration
        .as_nanos()
        .div_ceil(SLICE.as_nanos())
        .max(1) as u32;
    let mut progress = Progress::steps(crews.len(), backend);
    let mut rounds = vec![Vec::new(); crews.len()];
    // A round is every crew's --duration in turns, as a run of one round is.
    'rounds: for round in 0..options.rounds {
        let mut in_round = vec![Recorder::default(); crews.len()];
        let mut cpu_in_round = vec![Duration::ZERO; crews.len()];
        for k in 0..slices {
            let slice = (options.duration / slices).max(Duration::from_nanos(1));
            for (i, crew) in crews.iter().enumerate() {
                progress.label(format!(
                    "{} threads · {} · {}/{slices}",
                    options.threads,
                    crew.spec.name,
                    k + 1
                ));
                let cpu_before = process_cpu();
                let started = Instant::now();
                let ran = crew.run(slice, &mut in_round[i])?;
                cpu_in_round[i] += ran.cpu;
                let account = &mut accounts[i];
                account.wall += if mock { ran.ran } else { started.elapsed() };
                account.process_cpu += process_cpu().saturating_sub(cpu_before);
                let done = (round as f64 * f64::from(slices) + f64::from(k + 1))
                    / (options.rounds as f64 * f64::from(slices));
                progress.advance(i, done);
                if context.interrupted() {
                    break;
                }
            }
            if context.interrupted() {
                break;
            }
        }
        for (((pooled, kept), recorder), cpu) in recorders
            .iter_mut()
            .zip(&mut rounds)
            .zip(&in_round)
            .zip(cpu_in_round)
        {
            pooled.merge(recorder);
            let round = round_of(&recorder.summary());
            kept.push(Round {
                cpu_ns_per_wait: (cpu.as_nanos() as u64)
                    .checked_div(round.waits)
                    .unwrap_or(0),
                ..round
            });
        }
        if context.interrupted() {
            break 'rounds;
        }
    }
    progress.finish();
    let mut results = Vec::with_capacity(crews.len());
    for (((crew, account), recorder), rounds) in
        crews.into_iter().zip(accounts).zip(&recorders).zip(rounds)
    {
        let spec = crew.spec;
        let mut r = result(spec, crew.finish()?, recorder, account, backend);
        if options.rounds > 1 {
            r.over_rounds = OverRounds::of(&rounds, &options.intervals);
            r.rounds = rounds;
        }
        results.push(r);
    }
    let mut notes = context.notes();
    if !mock && sys::Os::process_cpu_time().is_none() {
        notes.push("this platform has no process CPU clock: `cores` reads 0".to_string());
    }
    Ok(ThreadsReport {
        schema_version: SCHEMA_VERSION,
        environment: context.environment.clone(),
        run: ThreadsRun {
            mode: RunMode::Threads,
            threads: options.threads,
            wait_min_ns: options.range.min.as_nanos() as u64,
            wait_max_ns: options.range.max.as_nanos() as u64,
            duration_per_method_ns: options.duration.as_nanos() as u64,
            load: context.load,
            load_threads: context.load_threads,
            interrupted: context.interrupted(),
        },
        results,
        notes,
        command: context.command.clone(),
    })
}

fn process_cpu() -> Duration {
    sys::Os::process_cpu_time().unwrap_or_default()
}

fn result(
    spec: &MethodSpec,
    totals: Vec<crew::ThreadTotals>,
    recorder: &Recorder,
    account: Account,
    backend: &dyn Backend,
) -> ThreadsResult {
    let mut thread_cpu = Duration::ZERO;
    let mut counts: Option<SpinCounts> = None;
    for thread in &totals {
        thread_cpu += thread.cpu;
        if let Some(c) = thread.spin_counts {
            *counts.get_or_insert_with(SpinCounts::default) += c;
        }
    }
    let per_wall = |cpu: Duration| cpu.as_secs_f64() / account.wall.as_secs_f64().max(1e-9);
    let thread_cores = per_wall(thread_cpu);
    ThreadsResult {
        method: spec.name.to_string(),
        ours: spec.ours,
        lateness: recorder.summary().lateness,
        wall_ns: account.wall.as_nanos() as u64,
        // A mock run has no process to measure: its threads' virtual CPU stands in.
        cores: if backend.is_mock() {
            thread_cores
        } else {
            per_wall(account.process_cpu)
        },
        thread_cores,
        spun: counts.map(|c| c.spun),
        capped: counts.map(|c| c.capped),
        native_only: counts.map(|c| c.native_only),
        lateness_percentiles: percentiles(recorder.histogram()),
        rounds: Vec::new(),
        over_rounds: None,
    }
}
