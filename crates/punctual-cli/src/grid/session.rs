//! Setting up and running the measuring threads: settings applied and every thread set up
//! before any starts; then the run, a progress bar meanwhile, and the report.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{anyhow, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use punctual::rt::{self, DmaLatencyGuard};

use super::options::{GridOptions, Stop};
use super::thread::{self, Live, Measured, Ready, ThreadPlan};
use super::{checks, contention, GridReport, ThreadReport};
use crate::environment::Environment;
use crate::sys::{self, Platform, SystemInfo, INTERRUPTED};

/// Mock runs start at a fixed time, so their JSON never changes.
const MOCK_START_SECS: u64 = 1_700_000_000;
/// The other load mock runs report: low enough to show the idle-machine warning.
const MOCK_OTHER_LOAD: f64 = 0.02;

/// A measuring thread, set up and waiting for the start.
struct Waiting {
    handle: JoinHandle<Measured>,
    start: Sender<bool>,
    ready: Ready,
    live: Arc<Live>,
}

/// Everything set up: settings applied, threads waiting.
pub struct Session {
    pub options: GridOptions,
    pub environment: Environment,
    threads: Vec<Waiting>,
    /// Known before the run: spinning under throttling, no Ctrl-C handler.
    pub warnings: Vec<String>,
    /// Held for the run: dropping it lets the CPUs idle deeply again.
    _dma_latency: Option<DmaLatencyGuard>,
}

impl Session {
    pub fn prepare(options: GridOptions) -> anyhow::Result<Session> {
        let real = !options.backend.is_mock();
        // Held before the environment is read, which names it; it touches no thread's timer
        // slack.
        let dma_latency = match options.dma_latency_us {
            Some(us) if real => Some(crate::environment::hold_dma_latency(us)?),
            _ => None,
        };
        // Read before any punctual sleep or setting touches this process.
        let environment = if options.backend.is_mock() {
            Environment::mock()
        } else {
            Environment::collect()
        };
        if options.mlock && real {
            rt::lock_memory().context("locking memory (--mlock)")?;
        }
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
    pub fn scheduling(&self) -> Vec<String> {
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

    pub fn run(self) -> anyhow::Result<GridReport> {
        let mock = self.options.backend.is_mock();
        let before = contention::usage();
        let started = if mock {
            SystemTime::UNIX_EPOCH + Duration::from_secs(MOCK_START_SECS)
        } else {
            SystemTime::now()
        };
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
        // The longest thread's grid, from its start to its last wake-up: the time measured.
        let wall = elapsed;
        let (ended, other_load) = if mock {
            (started + elapsed, Some(MOCK_OTHER_LOAD))
        } else {
            let other = contention::other_load(before, contention::usage());
            (SystemTime::now(), other)
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
            backend: options.backend,
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
/// at most four times a second until every measuring thread is done. The 50 ms polls cost the
/// machine less than cyclictest's own display, which wakes every 10 ms.
fn show_progress(options: &GridOptions, threads: &[Waiting]) {
    let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed}] {wide_bar} {percent:>3}% {msg}")
            .expect("a valid template"),
    );
    let started = Instant::now();
    while !threads.iter().all(|t| t.handle.is_finished()) {
        std::thread::sleep(Duration::from_millis(50));
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
