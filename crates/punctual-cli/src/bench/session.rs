//! One run of any bench mode, from its checked options to its exit code: the one place that
//! holds `--dma-latency`, checks every output before anything is measured, catches Ctrl-C,
//! reads the environment before any load or method thread exists, starts the load, seeds
//! the run, warms the methods up, and after it writes each output whatever became of the
//! others.
//!
//! A mode is what implements [`BenchMode`]: it measures in a [`RunContext`] and renders
//! what it measured as a table, a JSON export, an HTML page (and, for some, CSV, Markdown
//! and a plot). Everything a run shares is set up once, here, above [`BenchMode::run`].
//!
//! Rounds (`--repeat K`) are the modes' own, a loop around each mode's interleaved pass over
//! its methods at one wait, not K calls of [`BenchMode::run`]: the methods' workers (what the
//! hybrid learned) and the warm-up then live through every round as through every wait,
//! round `i` of two methods is the same stretch of host time (which the paired comparisons
//! need), and no mode has to merge K reports into one.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use super::backend::Backend;
use super::batch::Batch;
use super::load::{Load, LoadKind};
use super::worker::Worker;
use super::STOPPED_EARLY;
use crate::cli::RunArgs;
use crate::environment::Environment;
use crate::output::destinations::Destinations;
pub use crate::output::destinations::Outputs;
use crate::output::stdio;
use crate::sys::{self, Platform, INTERRUPTED};

/// The exit code of a run Ctrl-C stopped early, having printed and exported what it
/// measured: 128 + SIGINT, as a shell reports a process ended by it.
const STOPPED_BY_CTRL_C: u8 = 130;

/// The seed of every mock run, so that its output is the same from one run to the next.
const MOCK_SEED: u64 = 0x5eed;

/// Whether Ctrl-C asked this process to stop (see [`INTERRUPTED`]); a scale worker, which
/// has no [`RunContext`], asks here.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// What a mode measures with, set up once per run.
#[derive(Debug)]
pub struct RunContext {
    /// The machine, read before the load or any method thread started.
    pub environment: Environment,
    /// Where the methods and their clocks come from: the machine's, or deterministic
    /// stand-ins (`--mock-timer`).
    pub backend: &'static dyn Backend,
    /// The first seed of the run's random draws.
    pub seed: u64,
    /// Unrecorded waits per method before it is measured at each wait (`--warmup`; 0 for
    /// a mode without one): see [`RunContext::warm_up`].
    pub warmup: u64,
    /// The background load.
    pub load: LoadKind,
    /// How many load threads run: 0 with no load.
    pub load_threads: usize,
    /// The command line that made the run, the program as `punctual`, for its exports.
    pub command: Vec<String>,
    /// What degraded the load (a refused priority and the like).
    load_notes: Vec<String>,
}

impl RunContext {
    /// Whether Ctrl-C asked the run to stop: a mode ends at the end of the batch under way,
    /// keeps it, and starts no other.
    pub fn interrupted(&self) -> bool {
        interrupted()
    }

    /// Warms `workers` up before their first measured batch at a wait: each in turn runs
    /// [`RunContext::warmup`] unrecorded waits, as `batch` makes that many, so that what a
    /// method sets up or learns on its first waits (a runtime, a margin, the caches) is not
    /// measured; `show` is told whose turn it is (the progress bar).
    ///
    /// # Errors
    ///
    /// When a method's thread ended or its method could not be set up.
    pub fn warm_up<'a>(
        &self,
        workers: impl IntoIterator<Item = &'a Worker>,
        batch: impl Fn(u64) -> Batch,
        mut show: impl FnMut(&Worker),
    ) -> anyhow::Result<()> {
        if self.warmup == 0 {
            return Ok(());
        }
        for worker in workers {
            show(worker);
            worker.run(batch(self.warmup))?;
        }
        Ok(())
    }

    /// The notes every report of this run starts with: the load's, and the word that
    /// Ctrl-C stopped it, when it did.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = self.load_notes.clone();
        if self.interrupted() {
            notes.push(STOPPED_EARLY.to_string());
        }
        notes
    }
}

/// One bench mode: what it measures, and how it shows it.
pub trait BenchMode {
    /// What one run of the mode produced; its JSON export is the report itself.
    type Report: serde::Serialize;

    /// Measures, checking [`RunContext::interrupted`] after each batch.
    fn run(&self, context: &RunContext) -> anyhow::Result<Self::Report>;

    /// The unrecorded waits per method before each wait (`--warmup`), which the run's
    /// context holds ([`RunContext::warmup`]); 0 for a mode without a warm-up.
    fn warmup(&self) -> u64 {
        0
    }

    /// The table printed on standard output.
    fn table(&self, report: &Self::Report) -> String;

    /// The JSON export (see `docs/export.md`).
    fn json(&self, report: &Self::Report) -> anyhow::Result<Vec<u8>> {
        crate::export::json::bytes(report)
    }

    /// The self-contained HTML page, made from the report as its export holds it.
    fn page(&self, report: &Self::Report) -> anyhow::Result<String>;

    /// The CSV export, for the modes whose command line offers it.
    fn csv(&self, _report: &Self::Report) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!("this mode has no CSV export")
    }

    /// The Markdown export, for the modes whose command line offers it.
    fn markdown(&self, _report: &Self::Report) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!("this mode has no Markdown export")
    }

    /// The SVG plot, for the modes whose command line offers it.
    fn plot(&self, _report: &Self::Report) -> anyhow::Result<String> {
        anyhow::bail!("this mode has no plot")
    }
}

/// Runs `mode` with the shared settings on `backend`, the one the command chose from
/// `--mock-timer`, and writes its outputs; the exit code is 0 when all were written, 1 when
/// one could not be, 130 when Ctrl-C stopped the run (after writing).
pub fn execute<M: BenchMode>(
    mode: &M,
    backend: &'static dyn Backend,
    run: &RunArgs,
    outputs: Outputs,
    command: &[String],
) -> anyhow::Result<ExitCode> {
    // Held for the whole run.
    let _dma_latency = match run.dma_latency {
        Some(us) if !backend.is_mock() => Some(crate::environment::hold_dma_latency(us)?),
        _ => None,
    };
    // Before anything is measured: a path that cannot be written fails now.
    let destinations = Destinations::check(outputs)?;
    catch_interrupt();
    let environment = if backend.is_mock() {
        Environment::mock()
    } else {
        Environment::collect()
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_threads = run.load_threads.map_or(cpus, |n| n as usize);
    let load = Load::start(run.load, load_threads)?;
    let context = RunContext {
        environment,
        backend,
        seed: if backend.is_mock() {
            MOCK_SEED
        } else {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        },
        warmup: mode.warmup(),
        load: run.load,
        load_threads: if run.load == LoadKind::None {
            0
        } else {
            load_threads
        },
        command: command.to_vec(),
        load_notes: load.notes.clone(),
    };
    let report = mode.run(&context)?;
    drop(load);
    let interrupted = context.interrupted();
    if interrupted {
        stdio::eprint(
            "punctual: stopped early by Ctrl-C; the results are what was measured until then\n",
        );
    }
    let written = destinations.write(mode, &report);
    Ok(if !written {
        ExitCode::FAILURE
    } else if interrupted {
        ExitCode::from(STOPPED_BY_CTRL_C)
    } else {
        ExitCode::SUCCESS
    })
}

/// Turns the first Ctrl-C into a stop at the end of the batch under way; says so when it
/// cannot.
fn catch_interrupt() {
    if !sys::Os::catch_interrupt() {
        stdio::eprint("warning: Ctrl-C cannot be caught here: it ends the run without results\n");
    }
}
