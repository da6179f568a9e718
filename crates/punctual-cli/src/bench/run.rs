//! The wait table's run: methods measured in turns, one batch each, round after round.

use std::time::Duration;

use super::batch::Batch;
use super::options::{BenchOptions, Stop};
use super::recommend;
use super::report::{MethodResult, Report, RunInfo};
use super::rounds::OverRounds;
use super::session::RunContext;
use super::stats::Recorder;
use super::worker::Worker;
use crate::export::json::percentiles;
use crate::export::SCHEMA_VERSION;
use crate::output::progress::Progress;

/// Target wall time of one batch: short enough for the turns to interleave finely, long
/// enough that switching methods costs nothing measurable.
const BATCH_TIME: Duration = Duration::from_millis(100);

/// What one wait costs beyond its length (the harness's clock readings, the method's own
/// bookkeeping, the return): what batch sizes and the progress bar's estimate count on.
const PER_WAIT_OVERHEAD: Duration = Duration::from_micros(20);

pub(super) fn batch_size(wait: Duration) -> u64 {
    let per_wait = wait + PER_WAIT_OVERHEAD;
    (BATCH_TIME.as_nanos() / per_wait.as_nanos()).clamp(1, 2000) as u64
}

/// Runs the measurements. The environment is read first, before any load or method thread
/// exists. A Ctrl-C ends the run at the end of the batch under way: that batch is kept, no
/// other starts, and the report says so.
pub fn run(options: &BenchOptions, context: &RunContext) -> anyhow::Result<Report> {
    let backend = context.backend;
    let workers = options
        .methods
        .iter()
        .map(|spec| Worker::start(spec, backend))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut progress = Progress::new(
        options.waits.len(),
        workers.len(),
        expected_time(options, context.warmup),
        backend,
    );
    let mut seed = context.seed;
    let mut results = Vec::new();
    let mut histograms = Vec::new();
    for &wait in &options.waits {
        let batch = |count, seed| Batch {
            mode: options.mode,
            phase: options.phase,
            wait,
            count,
            seed,
        };
        let mut recorders = vec![Recorder::default(); workers.len()];
        let mut rounds = vec![Vec::new(); workers.len()];
        let mut method_notes = vec![None; workers.len()];
        context.warm_up(
            &workers,
            |count| batch(count, seed),
            |worker| progress.show(wait, worker.name),
        )?;
        // A round is one pass of the batch loop below over every method, each round as long
        // as a run of one round: the methods stay interleaved inside it, so a round's slow
        // spell falls on all of them, and the workers (what the hybrid learned) live through
        // every round, as they do through every wait.
        for round in 0..options.rounds {
            let mut in_round = vec![Recorder::default(); workers.len()];
            'batches: loop {
                let mut measured = false;
                for (i, worker) in workers.iter().enumerate() {
                    let Some(count) = next_count(options.stop, &in_round[i], wait) else {
                        continue;
                    };
                    measured = true;
                    seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    progress.show(wait, worker.name);
                    let result = worker.run(batch(count, seed))?;
                    let recorder = &mut in_round[i];
                    result.samples.iter().for_each(|&s| recorder.record(s));
                    recorder.add_missed(result.missed);
                    recorder.add_wall(result.wall.as_nanos());
                    method_notes[i] = result.note;
                    let done = (round as f64 + done_fraction(options.stop, &in_round[i]))
                        / options.rounds as f64;
                    progress.advance(i, done);
                    if context.interrupted() {
                        break 'batches;
                    }
                }
                if !measured {
                    break;
                }
            }
            for ((pooled, kept), recorder) in recorders.iter_mut().zip(&mut rounds).zip(&in_round) {
                pooled.merge(recorder);
                kept.push(super::rounds::round_of(&recorder.summary()));
            }
            if context.interrupted() {
                break;
            }
        }
        progress.next_wait();
        for (((spec, recorder), note), rounds) in options
            .methods
            .iter()
            .zip(&recorders)
            .zip(method_notes)
            .zip(rounds)
        {
            let summary = recorder.summary();
            // One round is the run as it always was: its export stays as it was.
            let rounds = if options.rounds > 1 {
                rounds
            } else {
                Vec::new()
            };
            results.push(MethodResult {
                method: spec.name.to_string(),
                ours: spec.ours,
                wait_ns: wait.as_nanos() as u64,
                mode: options.mode,
                summary,
                cpu_share: summary.cpu_ns_per_wait as f64 / wait.as_nanos() as f64,
                note,
                lateness_percentiles: percentiles(recorder.histogram()),
                over_rounds: OverRounds::of(&rounds, &options.intervals),
                rounds,
            });
            histograms.push(recorder.histogram().clone());
        }
        if context.interrupted() {
            break;
        }
    }
    progress.finish();
    let mut notes = context.notes();
    drop(workers);
    if results
        .iter()
        .any(|r| r.summary.cpu_ns_per_wait == 0 && r.summary.lateness.samples > 0)
        && !backend.is_mock()
    {
        notes.push("this platform has no per-thread CPU clock: CPU figures read 0".to_string());
    }
    let recommendation = recommend::recommend(&results, &options.intervals);
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        environment: context.environment.clone(),
        run: RunInfo {
            mode: options.mode.into(),
            phase: options.phase,
            load: context.load,
            load_threads: context.load_threads,
            samples_per_method: match options.stop {
                Stop::Samples(n) => Some(n),
                Stop::Duration(_) => None,
            },
            duration_per_method_ns: match options.stop {
                Stop::Samples(_) => None,
                Stop::Duration(d) => Some(d.as_nanos() as u64),
            },
            warmup: context.warmup,
            timers: None,
            min_rounds: None,
            interrupted: context.interrupted(),
        },
        results,
        scale: Vec::new(),
        recommendation,
        notes,
        command: context.command.clone(),
        histograms,
    })
}

/// About how long the whole run takes with `warmup` waits before each, for the progress bar.
fn expected_time(options: &BenchOptions, warmup: u64) -> Duration {
    let per_method: Duration = options
        .waits
        .iter()
        .map(|&wait| match options.stop {
            Stop::Samples(n) => {
                (wait + PER_WAIT_OVERHEAD) * (n + warmup).min(u32::MAX as u64) as u32
            }
            Stop::Duration(d) => d,
        })
        .sum();
    per_method * options.methods.len() as u32 * options.rounds.min(u64::from(u32::MAX)) as u32
}

/// How many waits the next batch of this method measures, or `None` when it is done.
fn next_count(stop: Stop, recorder: &Recorder, wait: Duration) -> Option<u64> {
    let size = batch_size(wait);
    match stop {
        Stop::Samples(n) => Some(n.saturating_sub(recorder.count()).min(size)).filter(|&c| c > 0),
        Stop::Duration(budget) => {
            let left = budget.as_nanos().saturating_sub(recorder.wall_ns());
            let per_wait = (wait + PER_WAIT_OVERHEAD).as_nanos();
            (left > 0).then(|| (left.div_ceil(per_wait) as u64).clamp(1, size))
        }
    }
}

fn done_fraction(stop: Stop, recorder: &Recorder) -> f64 {
    match stop {
        Stop::Samples(n) => recorder.count() as f64 / n.max(1) as f64,
        Stop::Duration(d) => recorder.wall_ns() as f64 / d.as_nanos().max(1) as f64,
    }
    .min(1.0)
}
