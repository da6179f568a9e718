//! `punctual grid`: a cyclictest-class periodic latency test.
//!
//! Each measuring thread wakes on absolute deadlines `start + k * interval` with a
//! [`punctual::Ticker`] of the chosen strategy and records how late each wake-up was;
//! a wake-up too late for the next period skips it, and the skip is counted. Settings are
//! applied before anything is measured, and a refused one stops the run (exit code 1), as
//! cyclictest stops when its priority is refused: figures measured under other settings than
//! asked would be reported as if they were not.
//!
//! The output is cyclictest's (`T:` lines, `--histogram`, `--json` in the rt-tests layout),
//! with punctual's percentiles and missed periods on lines of their own.

mod checks;
mod contention;
mod header;
mod histogram;
mod json;
mod options;
mod stats;
mod summary;
mod thread;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use punctual::rt::{self, DmaLatencyGuard};

use crate::cli::GridArgs;
use crate::environment::Environment;
use crate::sys::{self, Platform, SystemInfo, INTERRUPTED};
use options::{GridOptions, Stop};
use stats::ThreadStats;
use thread::{Live, Measured, Ready, ThreadPlan};

/// One measuring thread's results.
#[derive(Debug, Clone)]
pub struct ThreadReport {
    pub index: usize,
    pub tid: u64,
    pub cpu: Option<usize>,
    pub scheduling: Option<String>,
    pub stats: ThreadStats,
}

/// Everything a run produced; the output formats read it.
#[derive(Debug, Clone)]
pub struct GridReport {
    pub options: GridOptions,
    pub environment: Environment,
    pub system: SystemInfo,
    pub threads: Vec<ThreadReport>,
    pub started: SystemTime,
    pub ended: SystemTime,
    pub wall: Duration,
    /// Share of the machine's CPU time other processes used during the run.
    pub other_load: Option<f64>,
    /// Whether Ctrl-C ended the run.
    pub interrupted: bool,
    pub warnings: Vec<String>,
}

/// Mock runs start at a fixed time, so their JSON never changes.
const MOCK_START_SECS: u64 = 1_700_000_000;
/// The other load mock runs report: low enough to show the idle-machine warning.
const MOCK_OTHER_LOAD: f64 = 0.02;

pub fn command(args: &GridArgs) -> anyhow::Result<()> {
    let options = GridOptions::new(args, command_line())?;
    let json_to_stdout = options.json.as_deref() == Some(Path::new("-"));
    let results_only = options.quiet || json_to_stdout;
    let session = Session::prepare(options)?;
    let header = header::render(
        &session.options,
        &session.environment,
        &session.scheduling(),
    );
    if results_only {
        eprint!("{header}");
    } else {
        print!("{header}");
        std::io::stdout().flush()?;
    }
    for warning in &session.warnings {
        eprintln!("warning: {warning}");
    }
    let printed = session.warnings.len();
    let report = session.run()?;
    if !json_to_stdout {
        let mut out = String::new();
        // cyclictest -q -h prints the histogram alone.
        if !(report.options.quiet && report.options.histogram_us.is_some()) {
            out.push_str(&summary::render(&report));
        }
        if report.options.histogram_us.is_some() {
            out.push_str(&histogram::render(&report));
        }
        print!("{out}");
    }
    let footer = header::footer(&report);
    if results_only {
        eprint!("{footer}");
    } else {
        print!("\n{footer}");
    }
    for warning in &report.warnings[printed..] {
        eprintln!("warning: {warning}");
    }
    if let Some(path) = &report.options.json {
        let bytes = json::render(&report)?;
        if json_to_stdout {
            std::io::stdout().write_all(&bytes)?;
        } else {
            std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// `punctual` and the arguments as given, as cyclictest records its command line.
fn command_line() -> String {
    std::iter::once("punctual".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A measuring thread, set up and waiting for the start.
struct Waiting {
    handle: JoinHandle<Measured>,
    start: Sender<bool>,
    ready: Ready,
    live: Arc<Live>,
}

/// Everything set up: settings applied, threads waiting.
struct Session {
    options: GridOptions,
    environment: Environment,
    threads: Vec<Waiting>,
    warnings: Vec<String>,
    /// Held for the run: dropping it lets the CPUs idle deeply again.
    _dma_latency: Option<DmaLatencyGuard>,
}

impl Session {
    fn prepare(options: GridOptions) -> anyhow::Result<Session> {
        // Read first, before any punctual sleep or setting touches this process.
        let environment = if options.mock {
            Environment::mock()
        } else {
            Environment::collect()
        };
        let real = !options.mock;
        if options.mlock && real {
            rt::lock_memory().context("locking memory (--mlock)")?;
        }
        let dma_latency = match options.dma_latency_us {
            Some(us) if real => Some(
                DmaLatencyGuard::new(Duration::from_micros(us.into()))
                    .context("holding /dev/cpu_dma_latency (--dma-latency)")?,
            ),
            _ => None,
        };
        let mut warnings = Vec::new();
        if real && !sys::Os::catch_interrupt() {
            warnings.push("Ctrl-C cannot be caught here: it ends the run without results".into());
        }
        let threads = start_threads(&options)?;
        for thread in &threads {
            if let Some(warning) = &thread.ready.spin_warning {
                if !warnings.contains(warning) {
                    warnings.push(warning.clone());
                }
            }
        }
        Ok(Session {
            options,
            environment,
            threads,
            warnings,
            _dma_latency: dma_latency,
        })
    }

    /// What the threads' priority requests came to, once per distinct outcome.
    fn scheduling(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for s in self
            .threads
            .iter()
            .filter_map(|t| t.ready.scheduling.clone())
        {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        seen
    }

    fn run(self) -> anyhow::Result<GridReport> {
        let mock = self.options.mock;
        let before = contention::usage();
        let started = if mock {
            SystemTime::UNIX_EPOCH + Duration::from_secs(MOCK_START_SECS)
        } else {
            SystemTime::now()
        };
        let clock = Instant::now();
        for thread in &self.threads {
            // A thread that is gone has reported why through its join below.
            let _ = thread.start.send(true);
        }
        if !mock && !self.options.quiet {
            show_progress(&self.options, &self.threads);
        }
        let mut threads = Vec::new();
        let mut elapsed = Duration::ZERO;
        for (index, thread) in self.threads.into_iter().enumerate() {
            let measured = thread
                .handle
                .join()
                .map_err(|_| anyhow!("measuring thread {index} panicked"))?;
            elapsed = elapsed.max(measured.elapsed);
            threads.push(ThreadReport {
                index,
                tid: thread.ready.tid,
                cpu: self.options.cpus[index],
                scheduling: thread.ready.scheduling,
                stats: measured.stats,
            });
        }
        let (wall, ended, other_load) = if mock {
            let ended = started + elapsed;
            (elapsed, ended, Some(MOCK_OTHER_LOAD))
        } else {
            let other = contention::other_load(before, contention::usage());
            (clock.elapsed(), SystemTime::now(), other)
        };
        let mut warnings = self.warnings;
        let fewest = threads.iter().map(|t| t.stats.cycles).min().unwrap_or(0);
        warnings.extend(checks::too_short(fewest, wall));
        warnings.extend(checks::unloaded(other_load));
        Ok(GridReport {
            options: self.options,
            environment: self.environment,
            system: if mock {
                mock_system()
            } else {
                sys::Os::system_info()
            },
            threads,
            started,
            ended,
            wall,
            other_load,
            interrupted: INTERRUPTED.load(Ordering::Relaxed),
            warnings,
        })
    }
}

fn mock_system() -> SystemInfo {
    SystemInfo {
        sysname: "MockOS".into(),
        nodename: "mock".into(),
        release: "1.0".into(),
        version: "#1 mock".into(),
        machine: "x86_64".into(),
    }
}

/// Spawns a thread per CPU entry; each sets itself up and reports. If any is refused, the
/// others are let go without measuring and the refusal is the error.
fn start_threads(options: &GridOptions) -> anyhow::Result<Vec<Waiting>> {
    let (ready_tx, ready_rx) = channel::<(usize, anyhow::Result<Ready>)>();
    let mut spawned = Vec::new();
    for (index, &cpu) in options.cpus.iter().enumerate() {
        let plan = ThreadPlan {
            index,
            cpu,
            priority: options.priority,
            strategy: options.strategy,
            interval: options.interval,
            stop: options.stop,
            histogram_us: options.histogram_us,
            mock: options.mock,
        };
        let (start_tx, start_rx) = channel();
        let (ready, live) = (ready_tx.clone(), Arc::new(Live::default()));
        let thread_live = live.clone();
        let handle = std::thread::Builder::new()
            .name(format!("grid-{index}"))
            .spawn(move || thread::run(&plan, &ready, &start_rx, &thread_live, &INTERRUPTED))
            .context("starting a measuring thread")?;
        spawned.push((handle, start_tx, live));
    }
    drop(ready_tx);
    let mut readies: Vec<Option<anyhow::Result<Ready>>> = spawned.iter().map(|_| None).collect();
    for (index, ready) in ready_rx.iter().take(spawned.len()) {
        readies[index] = Some(ready);
    }
    let mut waiting = Vec::new();
    let mut refusal = None;
    for (index, ((handle, start, live), ready)) in spawned.into_iter().zip(readies).enumerate() {
        match ready {
            Some(Ok(ready)) => waiting.push(Waiting {
                handle,
                start,
                ready,
                live,
            }),
            Some(Err(e)) => {
                refusal.get_or_insert(e.context(format!("measuring thread {index}")));
                let _ = handle.join();
            }
            None => {
                refusal.get_or_insert(anyhow!(
                    "measuring thread {index} ended before it was set up"
                ));
                let _ = handle.join();
            }
        }
    }
    match refusal {
        None => Ok(waiting),
        Some(e) => {
            for thread in waiting {
                let _ = thread.start.send(false);
                let _ = thread.handle.join();
            }
            Err(e)
        }
    }
}

/// A progress bar on stderr (hidden when stderr is not a terminal), redrawn by this thread
/// four times a second until every measuring thread is done.
fn show_progress(options: &GridOptions, threads: &[Waiting]) {
    let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed}] {wide_bar} {percent:>3}% {msg}")
            .expect("a valid template"),
    );
    let started = Instant::now();
    while !threads.iter().all(|t| t.handle.is_finished()) {
        std::thread::sleep(Duration::from_millis(250));
        let cycles = threads
            .iter()
            .map(|t| t.live.cycles.load(Ordering::Relaxed))
            .min()
            .unwrap_or(0);
        let max_us = threads
            .iter()
            .map(|t| t.live.max_us.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        let done = match options.stop {
            Stop::Loops(n) => cycles as f64 / n as f64,
            Stop::Duration(d) => started.elapsed().as_secs_f64() / d.as_secs_f64(),
        };
        bar.set_position((done.min(1.0) * 1000.0) as u64);
        bar.set_message(format!("C: {cycles} Max: {max_us} us"));
    }
    bar.finish_and_clear();
}
