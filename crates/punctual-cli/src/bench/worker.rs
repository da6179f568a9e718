//! One thread per method: the method is created there and measured there, one batch at a
//! time, while every other method's thread waits. Nothing else runs on it, so its timer
//! slack, learned margin or runtime are its own, and its CPU clock counts only its waits.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};

use super::backend::Backend;
use super::batch::{Batch, BatchResult, Mode, Phase};
use super::clock::{Clock, MockClock, RealClock};
use super::method::{Measured, MethodSpec, WaitMethod};
use super::stats::Sample;
use crate::rng::Rng;
use punctual::Grid;

pub struct Worker {
    pub name: &'static str,
    commands: Sender<Option<Batch>>,
    results: Receiver<anyhow::Result<BatchResult>>,
    thread: Option<JoinHandle<()>>,
}

/// Builds a method on its measuring thread: for the machine's clocks (`None`), or on that
/// thread's mock clock, as the run's [`Backend`] gave it.
pub type MakeMethod =
    Box<dyn FnOnce(Option<&MockClock>) -> anyhow::Result<Box<dyn Measured>> + Send>;

/// Every method has the measuring loop compiled for its own type (see [`Measured`]).
impl<M: WaitMethod> Measured for M {
    fn measure(&mut self, mock: Option<&MockClock>, batch: Batch) -> BatchResult {
        match mock {
            Some(clock) => measure(self, clock, batch),
            None => measure(self, &RealClock, batch),
        }
    }
}

impl Worker {
    /// Starts the thread and creates `spec`'s method on it, as `backend` makes it.
    pub fn start(
        spec: &'static MethodSpec,
        backend: &'static dyn Backend,
    ) -> anyhow::Result<Worker> {
        spec.sync()?;
        Worker::spawn(
            spec.name,
            backend,
            Box::new(move |clock: Option<&MockClock>| backend.sync_method(spec, clock, 0)),
        )
    }

    /// Starts a thread named after `name`, on the clock `backend` gives it, and builds its
    /// method there with `make`.
    pub fn spawn(
        name: &'static str,
        backend: &'static dyn Backend,
        make: MakeMethod,
    ) -> anyhow::Result<Worker> {
        let (commands, command_rx) = channel::<Option<Batch>>();
        let (result_tx, results) = channel();
        let thread = std::thread::Builder::new()
            .name(format!("bench-{name}"))
            .spawn(move || {
                let clock = backend.thread_clock();
                let made = make(clock.as_ref())
                    .map(|method| serve(method, clock.as_ref(), &command_rx, &result_tx));
                if let Err(e) = made {
                    drop(result_tx.send(Err(e)));
                }
            })
            .context("starting a measuring thread")?;
        Ok(Worker {
            name,
            commands,
            results,
            thread: Some(thread),
        })
    }

    /// Measures one batch; blocks until it is done.
    pub fn run(&self, batch: Batch) -> anyhow::Result<BatchResult> {
        self.commands
            .send(Some(batch))
            .map_err(|_| anyhow!("the {} method's thread ended", self.name))?;
        self.results
            .recv()
            .map_err(|_| anyhow!("the {} method's thread ended", self.name))?
            .with_context(|| format!("setting up the {} method", self.name))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.commands.send(None);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut method: Box<dyn Measured>,
    mock: Option<&MockClock>,
    commands: &Receiver<Option<Batch>>,
    results: &Sender<anyhow::Result<BatchResult>>,
) {
    while let Ok(Some(batch)) = commands.recv() {
        let helper_before = method.helper_cpu();
        let now = || mock.map_or_else(Instant::now, Clock::now);
        let started = now();
        let mut result = method.measure(mock, batch);
        result.wall = now().saturating_duration_since(started);
        spread_helper_cpu(
            &mut result.samples,
            method.helper_cpu().saturating_sub(helper_before),
        );
        result.note = method.note();
        if results.send(Ok(result)).is_err() {
            return;
        }
    }
}

/// Charges CPU used by a method's helper threads evenly to the batch's waits.
fn spread_helper_cpu(samples: &mut [Sample], helper: Duration) {
    let n = samples.len() as u64;
    if n == 0 || helper.is_zero() {
        return;
    }
    let share = helper.as_nanos() as u64 / n;
    for sample in samples {
        sample.cpu_ns += share;
    }
}

fn measure<M: WaitMethod, C: Clock>(method: &mut M, clock: &C, batch: Batch) -> BatchResult {
    let mut rng = Rng::new(batch.seed);
    // Work between waits moves the start of each wait off whatever tick the last one woke on.
    let scramble = match batch.phase {
        Phase::Aligned => Duration::ZERO,
        Phase::Scrambled => scramble_span(batch.wait, batch.mode),
    };
    let mut samples = Vec::with_capacity(batch.count as usize);
    let mut missed = 0;
    // Grid mode: `start + k * wait` from k = 1, overdue points skipped forward and counted,
    // as cyclictest does (the grid's default policy).
    let mut grid =
        Grid::new(clock.now() + batch.wait, batch.wait).expect("a wait is longer than zero");
    for _ in 0..batch.count {
        if !scramble.is_zero() {
            clock.busy(Duration::from_nanos(rng.below(scramble.as_nanos() as u64)));
        }
        let cpu_before = clock.thread_cpu();
        let (deadline, due) = match batch.mode {
            Mode::Single => (clock.now() + batch.wait, None),
            Mode::Grid => {
                let due = grid.due(clock.now());
                // A grid point past the end of `Instant` is never reached: the batch ends.
                let Some(deadline) = due.deadline() else {
                    break;
                };
                missed += due.missed();
                (deadline, Some(due))
            }
        };
        let reported = method.wait_until(deadline);
        // One ruler for every method: the clock as the caller reads it once the method has
        // returned, whatever the method read inside.
        let woke = clock.now();
        let cpu = clock.thread_cpu().saturating_sub(cpu_before);
        if let Some(due) = due {
            grid.advance(&due, woke);
        }
        samples.push(Sample {
            lateness_ns: signed_nanos(woke, deadline),
            cpu_ns: cpu.as_nanos() as u64,
            self_reported_ns: reported.map(|at| signed_nanos(at, deadline)),
        });
    }
    BatchResult {
        samples,
        missed,
        ..BatchResult::default()
    }
}

/// How much random work may come between waits: about one wait, at least 1 ms (to cover a
/// scheduler tick) and at most 16 ms (a Windows tick); in grid mode under half a period, so
/// the next grid point stays reachable.
fn scramble_span(wait: Duration, mode: Mode) -> Duration {
    let span = wait.clamp(Duration::from_millis(1), Duration::from_millis(16));
    match mode {
        Mode::Single => span,
        Mode::Grid => span.min(wait / 2),
    }
}

pub fn signed_nanos(woke: Instant, deadline: Instant) -> i64 {
    if woke >= deadline {
        i64::try_from((woke - deadline).as_nanos()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from((deadline - woke).as_nanos()).unwrap_or(i64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports a wake `reported_ns` from the deadline but hands control back `returns_ns`
    /// after it.
    struct SlowReturn {
        clock: MockClock,
        reported_ns: i64,
        returns_ns: u64,
    }

    impl WaitMethod for SlowReturn {
        fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
            self.clock.advance_to(
                deadline + Duration::from_nanos(self.returns_ns),
                Duration::ZERO,
            );
            Some(match self.reported_ns {
                ns if ns >= 0 => deadline + Duration::from_nanos(ns as u64),
                ns => deadline - Duration::from_nanos(ns.unsigned_abs()),
            })
        }
    }

    fn one_sample(reported_ns: i64, returns_ns: u64) -> Sample {
        let clock = MockClock::new();
        let mut method = SlowReturn {
            clock: clock.clone(),
            reported_ns,
            returns_ns,
        };
        let batch = Batch {
            mode: Mode::Single,
            phase: Phase::Aligned,
            wait: Duration::from_millis(1),
            count: 1,
            seed: 1,
        };
        measure(&mut method, &clock, batch).samples[0]
    }

    #[test]
    fn lateness_is_the_callers_reading_after_the_method_returns() {
        let sample = one_sample(30, 180);
        assert_eq!(
            (sample.lateness_ns, sample.self_reported_ns),
            (180, Some(30))
        );
    }

    #[test]
    fn an_early_wake_is_judged_by_the_callers_reading() {
        // A method whose own reading says early, but which returned after the deadline, did
        // not wake its caller early; one that returned before it did, whatever it says.
        assert_eq!(one_sample(-100, 500).lateness_ns, 500);
        let clock = MockClock::new();
        struct ReturnsEarly(MockClock);
        impl WaitMethod for ReturnsEarly {
            fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
                self.0
                    .advance_to(deadline - Duration::from_nanos(40), Duration::ZERO);
                Some(deadline)
            }
        }
        let batch = Batch {
            mode: Mode::Single,
            phase: Phase::Aligned,
            wait: Duration::from_millis(1),
            count: 1,
            seed: 1,
        };
        let sample = measure(&mut ReturnsEarly(clock.clone()), &clock, batch).samples[0];
        assert_eq!(
            (sample.lateness_ns, sample.self_reported_ns),
            (-40, Some(0))
        );
    }
}
