//! `punctual bench`: every way to wait, measured side by side on this machine.
//!
//! Methods are measured in turns, one batch each, round after round, so that whatever the
//! machine does meanwhile (a noisy neighbour on a VM, a frequency change) falls on all of
//! them alike. Only one method runs at a time, each on a thread of its own.

pub mod clock;
pub mod frontier;
pub mod load;
pub mod method;
pub mod methods;
pub mod recommend;
pub mod scale;
pub mod stats;
pub mod threads;
mod worker;

use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::environment::Environment;
use crate::output::progress::Progress;
use crate::sys::INTERRUPTED;
use load::{Load, LoadKind};
use method::MethodSpec;
use stats::{Recorder, Summary};
use worker::{Batch, Worker};

/// How waits follow one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Back-to-back waits of the given length, each measured from its own start.
    Single,
    /// Absolute deadlines `start + k * wait`; lateness against each deadline.
    Grid,
}

/// What a run measured: waits of given lengths (single or grid), or many timers at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    /// Back-to-back waits (`--mode single`).
    Single,
    /// Waits on a fixed grid (`--mode grid`).
    Grid,
    /// N timers pending at once (`--scale`).
    Scale,
}

impl From<Mode> for RunMode {
    fn from(mode: Mode) -> RunMode {
        match mode {
            Mode::Single => RunMode::Single,
            Mode::Grid => RunMode::Grid,
        }
    }
}

/// Whether waits start right after the previous wake, or after random work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Each wait starts as soon as the previous one ended.
    Aligned,
    /// A random amount of busy work comes before each wait, so waits start at any phase of
    /// the OS's timer tick, as they do in real programs.
    Scrambled,
}

/// When to stop measuring one method at one wait length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Samples(u64),
    Duration(Duration),
}

/// A checked `punctual bench` invocation.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    pub methods: Vec<&'static MethodSpec>,
    pub waits: Vec<Duration>,
    pub stop: Stop,
    pub warmup: u64,
    pub mode: Mode,
    pub phase: Phase,
    pub load: LoadKind,
    pub load_threads: usize,
    pub mock: bool,
}

/// How the run was made.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// `single`, `grid` or `scale`.
    pub mode: RunMode,
    /// `aligned` or `scrambled`.
    pub phase: Phase,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads ran.
    pub load_threads: usize,
    /// Samples per method and wait, when the run was sized by count.
    pub samples_per_method: Option<u64>,
    /// Measuring time per method and wait, when the run was sized by time.
    pub duration_per_method_ns: Option<u64>,
    /// Unrecorded waits before each method's first batch at each wait length.
    pub warmup: u64,
    /// The numbers of timers pending at once, in scale mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timers: Option<Vec<u64>>,
    /// The fewest rounds per method and N, in scale mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rounds: Option<u64>,
    /// Whether Ctrl-C stopped the run before it measured all it was asked to: the results
    /// are then what was measured until the end of the batch under way (in scale mode, of
    /// the round under way), and nothing after it.
    pub interrupted: bool,
}

/// One method at one wait length.
#[derive(Debug, Clone, Serialize)]
pub struct MethodResult {
    /// The method's name, as `--methods` takes it.
    pub method: String,
    /// Whether it is one of punctual's own.
    pub ours: bool,
    /// The wait length, in nanoseconds.
    pub wait_ns: u64,
    /// `single` or `grid`.
    pub mode: Mode,
    #[serde(flatten)]
    pub summary: Summary,
    /// CPU time per wait as a share of the wait (1.0 is a whole core for the whole wait).
    pub cpu_share: f64,
    /// What the method reported about itself after this wait length.
    pub note: Option<String>,
}

/// Everything a run produced; the exporters and the table read it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub environment: Environment,
    pub run: RunInfo,
    pub results: Vec<MethodResult>,
    /// One method with N timers pending at once, per method and N (scale mode).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scale: Vec<scale::ScaleResult>,
    /// The one-line advice, when there is a method to advise.
    pub recommendation: Option<String>,
    /// Anything that degraded the run (refused priorities and the like).
    pub notes: Vec<String>,
    /// The lateness histogram of each result, in the same order, for plots.
    #[serde(skip)]
    pub histograms: Vec<Histogram<u64>>,
}

/// Target wall time of one batch: short enough for the turns to interleave finely, long
/// enough that switching methods costs nothing measurable.
const BATCH_TIME: Duration = Duration::from_millis(100);

fn batch_size(wait: Duration) -> u64 {
    let per_wait = wait + Duration::from_micros(20);
    (BATCH_TIME.as_nanos() / per_wait.as_nanos()).clamp(1, 2000) as u64
}

/// Whether Ctrl-C asked the run to stop (see [`INTERRUPTED`]).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The note a run stopped by Ctrl-C carries, in the table and every export.
pub const STOPPED_EARLY: &str =
    "stopped early by Ctrl-C: these are the results measured until then";

/// Runs the measurements. The environment is read first, before any load or method thread
/// exists. A Ctrl-C ends the run at the end of the batch under way: that batch is kept, no
/// other starts, and the report says so.
pub fn run(options: &BenchOptions) -> anyhow::Result<Report> {
    let environment = if options.mock {
        Environment::mock()
    } else {
        Environment::collect()
    };
    let load = Load::start(options.load, options.load_threads)?;
    let mut notes = load.notes.clone();
    let workers = options
        .methods
        .iter()
        .map(|spec| Worker::start(spec, options.mock))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut progress = Progress::new(options, workers.len());
    let mut seed = if options.mock {
        0x5eed
    } else {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    };
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
        let mut method_notes = vec![None; workers.len()];
        if options.warmup > 0 {
            for worker in &workers {
                progress.show(wait, worker.name);
                worker.run(batch(options.warmup, seed))?;
            }
        }
        'batches: loop {
            let mut measured = false;
            for (i, worker) in workers.iter().enumerate() {
                let Some(count) = next_count(options.stop, &recorders[i], wait) else {
                    continue;
                };
                measured = true;
                seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
                progress.show(wait, worker.name);
                let result = worker.run(batch(count, seed))?;
                let recorder = &mut recorders[i];
                result.samples.iter().for_each(|&s| recorder.record(s));
                recorder.add_missed(result.missed);
                recorder.add_wall(result.wall.as_nanos());
                method_notes[i] = result.note;
                progress.advance(i, done_fraction(options.stop, recorder));
                if interrupted() {
                    break 'batches;
                }
            }
            if !measured {
                break;
            }
        }
        progress.next_wait();
        for ((worker, recorder), note) in workers.iter().zip(&recorders).zip(method_notes) {
            let summary = recorder.summary();
            let spec = method::find(worker.name).expect("workers come from METHODS");
            results.push(MethodResult {
                method: worker.name.to_string(),
                ours: spec.ours,
                wait_ns: wait.as_nanos() as u64,
                mode: options.mode,
                summary,
                cpu_share: summary.cpu_ns_per_wait as f64 / wait.as_nanos() as f64,
                note,
            });
            histograms.push(recorder.histogram().clone());
        }
        if interrupted() {
            break;
        }
    }
    progress.finish();
    let stopped_early = interrupted();
    if stopped_early {
        notes.push(STOPPED_EARLY.to_string());
    }
    drop(workers);
    drop(load);
    if results
        .iter()
        .any(|r| r.summary.cpu_ns_per_wait == 0 && r.summary.lateness.samples > 0)
        && !options.mock
    {
        notes.push("this platform has no per-thread CPU clock: CPU figures read 0".to_string());
    }
    let recommendation = recommend::recommend(&results);
    Ok(Report {
        environment,
        run: RunInfo {
            mode: options.mode.into(),
            phase: options.phase,
            load: options.load,
            load_threads: if options.load == LoadKind::None {
                0
            } else {
                options.load_threads
            },
            samples_per_method: match options.stop {
                Stop::Samples(n) => Some(n),
                Stop::Duration(_) => None,
            },
            duration_per_method_ns: match options.stop {
                Stop::Samples(_) => None,
                Stop::Duration(d) => Some(d.as_nanos() as u64),
            },
            warmup: options.warmup,
            timers: None,
            min_rounds: None,
            interrupted: stopped_early,
        },
        results,
        scale: Vec::new(),
        recommendation,
        notes,
        histograms,
    })
}

/// How many waits the next batch of this method measures, or `None` when it is done.
fn next_count(stop: Stop, recorder: &Recorder, wait: Duration) -> Option<u64> {
    let size = batch_size(wait);
    match stop {
        Stop::Samples(n) => Some(n.saturating_sub(recorder.count()).min(size)).filter(|&c| c > 0),
        Stop::Duration(budget) => {
            let left = budget.as_nanos().saturating_sub(recorder.wall_ns());
            let per_wait = (wait + Duration::from_micros(20)).as_nanos();
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
