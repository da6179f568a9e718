//! `punctual frontier`: what each way of spinning buys, on this machine. For each
//! wait, in one interleaved run, punctual's native sleep followed by a plain spin with a
//! sweep of fixed margins (the frontier: the least tail lateness that a given CPU per wait
//! buys), spin_sleep with a sweep of native accuracies (its default among them), and the
//! adaptive methods (the hybrid, `async-spin`) placed on the same axes: CPU per wait
//! against p99 and p99.9 lateness.
//!
//! Every contender is timed as bench times every method: by the bench's clock reading after
//! the call returns, with CPU read from the measuring thread's CPU clock.

pub mod command;
pub mod contenders;
mod fit;
pub mod mock;
mod placement;
pub mod plot;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::backend::Backend;
use super::batch::Batch;
use super::load::LoadKind;
use super::rounds::OverRounds;
use super::session::RunContext;
use super::stats::{Recorder, Summary};
use super::worker::Worker;
use super::{batch_size, Mode, Phase, RunMode};
use crate::environment::Environment;
use crate::export::json::{percentiles, PercentilePoint};
use crate::export::SCHEMA_VERSION;
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::Round;
use crate::output::progress::Progress;
pub use contenders::Family;
pub use fit::FitVerdict;
pub use placement::sweep_verdict;
pub use placement::Placement;

/// A checked `punctual frontier` invocation.
#[derive(Debug, Clone)]
pub struct FrontierOptions {
    pub waits: Vec<Duration>,
    /// Samples per contender and wait; `None` for [`default_samples`].
    pub samples: Option<u64>,
    /// `--warmup`, handed to the run's context (`BenchMode::warmup`), which warms up.
    pub warmup: u64,
    pub phase: Phase,
    /// Rounds of every contender at every wait (`--repeat`).
    pub rounds: u64,
    /// How the intervals over rounds are computed.
    pub intervals: Settings,
}

/// How the run was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FrontierRun {
    /// Always `frontier`.
    pub mode: RunMode,
    /// `aligned` or `scrambled`.
    pub phase: Phase,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads ran.
    pub load_threads: usize,
    /// Unrecorded waits before each contender's first batch at each wait.
    pub warmup: u64,
    /// The waits measured, with the samples each contender took at each, in each round.
    pub waits: Vec<WaitSize>,
    /// Whether Ctrl-C stopped the run before it measured all it was asked to: the points
    /// of the wait it stopped at are then what was measured until the end of the batch
    /// under way, and no later wait was measured.
    #[serde(default)]
    pub interrupted: bool,
}

/// One wait of the run and how many samples each contender took there in each round.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct WaitSize {
    pub wait_ns: u64,
    pub samples_per_contender: u64,
}

/// One contender at one wait: a point on the plot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FrontierPoint {
    /// `fixed-margin`, `spin-sleep`, `hybrid` or `async-spin`.
    pub family: Family,
    /// The name the table and the plot give it.
    pub label: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// The fixed margin, or spin_sleep's native accuracy, in nanoseconds; `null` for the
    /// adaptive methods.
    pub setting_ns: Option<u64>,
    /// spin_sleep's own default accuracy.
    pub default: bool,
    /// The wait, in nanoseconds.
    pub wait_ns: u64,
    #[serde(flatten)]
    pub summary: Summary,
    /// CPU time per wait as a share of the wait.
    pub cpu_share: f64,
    /// The points of its lateness distribution, as a wait table's results carry them.
    #[serde(default)]
    pub lateness_percentiles: Vec<PercentilePoint>,
    /// Each round's figures, in the order measured (`--repeat K`, K from 2; absent for one
    /// round). The figures above are over every round's waits together.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
    /// The figures over the rounds with their intervals, as a wait table's row has them
    /// (absent for one round, and in exports from before they were written: `punctual
    /// report` then reads them from `rounds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_rounds: Option<OverRounds>,
}

/// Everything a frontier run produced: its JSON export is this struct, written and read
/// back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FrontierReport {
    /// See [`crate::export::SCHEMA_VERSION`]; 0 in an export from before it was written.
    #[serde(default)]
    pub schema_version: u32,
    pub environment: Environment,
    pub run: FrontierRun,
    /// Every contender at every wait, waits in the order given.
    pub points: Vec<FrontierPoint>,
    /// Where each adaptive method sits against the frontier and spin_sleep's default.
    pub placements: Vec<Placement>,
    /// Anything that degraded the run.
    pub notes: Vec<String>,
    /// The command line that made the run, the program as `punctual`.
    #[serde(default)]
    pub command: Vec<String>,
}

impl FrontierReport {
    /// The rounds of the run: 1 unless it had `--repeat`.
    pub fn rounds(&self) -> usize {
        self.points
            .iter()
            .map(|p| p.rounds.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// Samples per contender at `wait` when `--samples` does not say: about two seconds of
/// waiting each, at least 500 (a p99 of 5 samples' worth) and at most 5,000, so that 100us,
/// 1ms and 10ms with some fifteen contenders take about two minutes.
pub fn default_samples(wait: Duration) -> u64 {
    let per_wait = (wait + Duration::from_micros(20)).as_nanos();
    (Duration::from_secs(2).as_nanos() / per_wait).clamp(500, 5_000) as u64
}

/// Runs the contenders at every wait, interleaved in batches.
pub fn run(options: &FrontierOptions, context: &RunContext) -> anyhow::Result<FrontierReport> {
    let backend = context.backend;
    let scales = backend.frontier_scales();
    let plan: Vec<(Duration, Vec<contenders::Contender>)> = options
        .waits
        .iter()
        .map(|&wait| (wait, contenders::at(wait, &scales)))
        .collect();
    // The adaptive methods keep what they learned from one wait to the next, as they do in
    // bench's table; the sweeps are made afresh for each wait.
    let adaptive: Vec<(Family, Worker)> = [Family::Hybrid, Family::AsyncSpin]
        .into_iter()
        .map(|family| {
            let contender = contenders::Contender {
                family,
                setting: None,
                default: false,
            };
            Ok((family, start(contender, backend)?))
        })
        .collect::<anyhow::Result<_>>()?;
    let steps = plan.iter().map(|(_, c)| c.len()).sum();
    let mut progress = if long(options) {
        Progress::steps(steps, backend)
    } else {
        Progress::hidden(steps)
    };
    let mut seed = context.seed;
    let mut points = Vec::new();
    let mut placements = Vec::new();
    let mut sizes = Vec::new();
    let mut step = 0;
    for (wait, contenders) in &plan {
        let wait = *wait;
        let samples = options.samples.unwrap_or_else(|| default_samples(wait));
        sizes.push(WaitSize {
            wait_ns: wait.as_nanos() as u64,
            samples_per_contender: samples,
        });
        let sweep: Vec<Option<Worker>> = contenders
            .iter()
            .map(|c| match c.setting {
                Some(_) => start(*c, backend).map(Some),
                None => Ok(None),
            })
            .collect::<anyhow::Result<_>>()?;
        let workers: Vec<&Worker> = contenders
            .iter()
            .zip(&sweep)
            .map(|(c, own)| match own {
                Some(worker) => worker,
                None => {
                    &adaptive
                        .iter()
                        .find(|(family, _)| *family == c.family)
                        .expect("every adaptive family has a worker")
                        .1
                }
            })
            .collect();
        // Rounds as in the wait table (`bench/run.rs`): the whole interleaved pass over
        // every contender again, the workers kept, so round i of a fixed margin and of the
        // hybrid are the same stretch of host time, which the fit's bootstrap pairs.
        let mut recorders = vec![Recorder::default(); workers.len()];
        let mut rounds = vec![Vec::new(); workers.len()];
        for round in 0..options.rounds {
            let in_round = measure_wait(
                &workers,
                (wait, samples),
                options,
                context,
                &mut seed,
                (&mut progress, step, (round, options.rounds)),
            )?;
            for ((pooled, kept), recorder) in recorders.iter_mut().zip(&mut rounds).zip(&in_round) {
                pooled.merge(recorder);
                kept.push(crate::bench::rounds::round_of(&recorder.summary()));
            }
            if context.interrupted() {
                break;
            }
        }
        step += contenders.len();
        let at_wait: Vec<FrontierPoint> = contenders
            .iter()
            .zip(&recorders)
            .zip(rounds)
            .map(|((c, recorder), rounds)| {
                let mut p = point(c, wait, recorder);
                if options.rounds > 1 {
                    p.over_rounds = OverRounds::of(&rounds, &options.intervals);
                    p.rounds = rounds;
                }
                p
            })
            .collect();
        let mut placed = placement::place_all(&at_wait);
        if options.rounds > 1 {
            fit::place_on_fit(&mut placed, &at_wait, &options.intervals);
        }
        placements.extend(placed);
        points.extend(at_wait);
        if context.interrupted() {
            break;
        }
    }
    progress.finish();
    drop(adaptive);
    let mut notes = context.notes();
    if !backend.is_mock() && points.iter().all(|p| p.summary.cpu_ns_per_wait == 0) {
        notes.push("this platform has no per-thread CPU clock: CPU figures read 0".to_string());
    }
    Ok(FrontierReport {
        schema_version: SCHEMA_VERSION,
        environment: context.environment.clone(),
        run: FrontierRun {
            mode: RunMode::Frontier,
            phase: options.phase,
            load: context.load,
            load_threads: context.load_threads,
            warmup: context.warmup,
            waits: sizes,
            interrupted: context.interrupted(),
        },
        points,
        placements,
        notes,
        command: context.command.clone(),
    })
}

/// Measures `samples` waits of `wait` with every worker, in turns of a batch each, or until
/// Ctrl-C asks the run to stop (after the batch under way).
fn measure_wait(
    workers: &[&Worker],
    (wait, samples): (Duration, u64),
    options: &FrontierOptions,
    context: &RunContext,
    seed: &mut u64,
    (progress, step, (round, rounds)): (&mut Progress, usize, (u64, u64)),
) -> anyhow::Result<Vec<Recorder>> {
    let batch = |count, seed| Batch {
        mode: Mode::Single,
        phase: options.phase,
        wait,
        count,
        seed,
    };
    // Warm-up once per wait, before its first round.
    if round == 0 {
        context.warm_up(
            workers.iter().copied(),
            |count| batch(count, *seed),
            |worker| progress.label(format!("{} · {} (warm-up)", label(wait), worker.name)),
        )?;
    }
    let mut recorders = vec![Recorder::default(); workers.len()];
    loop {
        let mut measured = false;
        for (i, worker) in workers.iter().enumerate() {
            let count = samples
                .saturating_sub(recorders[i].count())
                .min(batch_size(wait));
            if count == 0 {
                continue;
            }
            measured = true;
            *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            progress.label(format!("{} · {}", label(wait), worker.name));
            let result = worker.run(batch(count, *seed))?;
            result.samples.iter().for_each(|&s| recorders[i].record(s));
            let done = recorders[i].count() as f64 / samples as f64;
            progress.advance(step + i, (round as f64 + done) / rounds as f64);
            if context.interrupted() {
                return Ok(recorders);
            }
        }
        if !measured {
            return Ok(recorders);
        }
    }
}

/// Whether the run takes long enough to show a progress bar.
fn long(options: &FrontierOptions) -> bool {
    let waited: Duration = options
        .waits
        .iter()
        .map(|&w| {
            let samples = options.samples.unwrap_or_else(|| default_samples(w));
            w.saturating_mul(samples.min(u64::from(u32::MAX)) as u32)
                .saturating_mul(options.rounds.min(u64::from(u32::MAX)) as u32)
        })
        .fold(Duration::ZERO, Duration::saturating_add);
    waited > Duration::from_millis(200)
}

fn label(wait: Duration) -> String {
    crate::units::wait_label(wait)
}

/// A worker for `contender`. Its name lives as long as the process (a run has a few dozen),
/// since a worker's name is static.
fn start(
    contender: contenders::Contender,
    backend: &'static dyn Backend,
) -> anyhow::Result<Worker> {
    let name: &'static str = Box::leak(contender.label().into_boxed_str());
    Worker::spawn(name, backend, contender.make(backend))
}

fn point(contender: &contenders::Contender, wait: Duration, recorder: &Recorder) -> FrontierPoint {
    let summary = recorder.summary();
    FrontierPoint {
        family: contender.family,
        label: contender.label(),
        ours: contender.ours(),
        setting_ns: contender.setting.map(|s| s.as_nanos() as u64),
        default: contender.default,
        wait_ns: wait.as_nanos() as u64,
        summary,
        cpu_share: summary.cpu_ns_per_wait as f64 / wait.as_nanos() as f64,
        lateness_percentiles: percentiles(recorder.histogram()),
        rounds: Vec::new(),
        over_rounds: None,
    }
}
