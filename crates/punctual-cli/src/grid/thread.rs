//! A measuring thread: it sets itself up (affinity, then priority), reports ready, waits for
//! the start, then wakes on its grid until told to stop. Nothing else runs on it.
//!
//! Real runs wait as a [`punctual::Ticker`] under [`MissedTickPolicy::Skip`] does, which is
//! cyclictest's loop: tick `k` is due at `start + k * interval`, and a wake-up too late for
//! the next period skips it (counted) rather than running two periods back to back. The
//! thread takes the ticker's parts (the [`Grid`] and a [`Sleeper`]) so that a wait for a
//! long period goes in slices: a Ctrl-C, or the end of `--duration`, ends it within
//! [`SLICE`], where the library's wait would sleep through to the deadline.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::Context;
use punctual::{rt, Grid, MissedTickPolicy, Sleeper, Strategy};

use super::options::Stop;
use super::stats::ThreadStats;
use crate::bench::backend::Backend;
use crate::bench::clock::{Clock, MockClock};
use crate::bench::method::WaitMethod;
use crate::bench::methods;
use crate::sys::{self, Platform};

/// What one thread measures, and how it is set up.
#[derive(Debug, Clone)]
pub struct ThreadPlan {
    pub index: usize,
    pub cpu: Option<usize>,
    pub priority: Option<i32>,
    pub strategy: Strategy,
    pub interval: Duration,
    pub stop: Stop,
    pub histogram_us: Option<u32>,
    pub backend: &'static dyn Backend,
}

/// A thread set up and waiting for the start.
#[derive(Debug, Clone)]
pub struct Ready {
    pub tid: u64,
    /// The scheduling the thread got, when a priority was asked for.
    pub scheduling: Option<String>,
    /// [`rt::spin_warning`], read on the thread once its priority is set.
    pub spin_warning: Option<String>,
}

/// How far each thread has got, for the progress line; written with relaxed stores, which
/// cost the measuring loop nothing it would notice.
#[derive(Debug, Default)]
pub struct Live {
    pub cycles: AtomicU64,
    pub max_us: AtomicU64,
}

/// One wake-up.
struct Period {
    lateness: Duration,
    missed: u64,
    /// From the start of the grid to the wake-up.
    elapsed: Duration,
}

/// The longest a measuring thread sleeps without looking at whether to stop. Waits for a
/// period up to this long are one wait of the chosen strategy, as before; a longer one
/// sleeps natively in slices until the deadline is this close, then waits for it with the
/// strategy: its lateness is still measured against its own deadline, never early.
pub const SLICE: Duration = Duration::from_millis(50);

trait Periods {
    /// The next wake-up, or `None` when `stop` said so (given the clock) before it came.
    fn next(&mut self, stop: &dyn Fn(Instant) -> bool) -> Option<Period>;
}

/// A [`punctual::Ticker`]'s loop, taken apart so that long waits go in slices.
struct TickerPeriods {
    grid: Grid,
    sleeper: Sleeper,
    start: Instant,
}

impl Periods for TickerPeriods {
    fn next(&mut self, stop: &dyn Fn(Instant) -> bool) -> Option<Period> {
        // What Ticker::tick does, with the slices before its wait.
        let due = self.grid.due(Instant::now());
        let deadline = due.deadline();
        loop {
            let now = Instant::now();
            // A deadline past the end of `Instant` is never reached: slices until the stop.
            let left = deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(now));
            // A short wait is one wait, the stop looked at after it, as it always was.
            if left <= SLICE {
                break;
            }
            if stop(now) {
                return None;
            }
            std::thread::sleep((left - SLICE).min(SLICE));
        }
        let wake = self.sleeper.sleep_until(deadline?);
        self.grid.advance(&due, wake.woke());
        Some(Period {
            lateness: wake.lateness(),
            missed: due.missed(),
            elapsed: wake.woke().saturating_duration_since(self.start),
        })
    }
}

/// The grid on bench's mock clock, waiting like bench's mock method of the same strategy.
struct MockPeriods {
    clock: MockClock,
    method: Box<dyn WaitMethod>,
    grid: Grid,
    start: Instant,
}

impl Periods for MockPeriods {
    /// Virtual time passes in no time: a mock wait needs no slices.
    fn next(&mut self, _stop: &dyn Fn(Instant) -> bool) -> Option<Period> {
        let due = self.grid.due(self.clock.now());
        let deadline = due.deadline().expect("mock grids are short");
        // As the real grid does, by the sleeper's own reading (`Wake::woke` of its tick).
        let woke = self
            .method
            .wait_until(deadline)
            .expect("the mock of a punctual strategy reports its wake");
        self.grid.advance(&due, woke);
        Some(Period {
            lateness: woke - deadline,
            missed: due.missed(),
            elapsed: woke - self.start,
        })
    }
}

/// Sets the calling thread up as `plan` says; any refusal ends the run before it starts.
fn set_up(plan: &ThreadPlan) -> anyhow::Result<Ready> {
    if plan.backend.is_mock() {
        return Ok(Ready {
            tid: 4200 + plan.index as u64,
            scheduling: plan.priority.map(|p| format!("SCHED_FIFO {p}")),
            spin_warning: None,
        });
    }
    if let Some(cpu) = plan.cpu {
        rt::set_affinity(&[cpu]).with_context(|| format!("pinning it to CPU {cpu}"))?;
    }
    let scheduling = match plan.priority {
        Some(priority) => Some(
            rt::set_realtime_priority(priority)
                .with_context(|| format!("setting real-time priority {priority}"))?
                .to_string(),
        ),
        None => None,
    };
    let spin_warning = (plan.priority.is_some() && plan.strategy != Strategy::Native)
        .then(rt::spin_warning)
        .flatten();
    Ok(Ready {
        tid: sys::Os::thread_id(),
        scheduling,
        spin_warning,
    })
}

/// What a thread measured, and over how long (from the start of its grid to its last
/// wake-up, or to the stop that ended a wait; virtual time in mock runs).
#[derive(Debug, Clone)]
pub struct Measured {
    pub stats: ThreadStats,
    pub elapsed: Duration,
}

/// The thread's body: set up, say so on `ready` with the thread's index, wait for `start`
/// (false: abandon), measure.
pub fn run(
    plan: &ThreadPlan,
    ready: &Sender<(usize, anyhow::Result<Ready>)>,
    start: &Receiver<bool>,
    live: &Live,
    interrupted: &AtomicBool,
) -> Measured {
    let mut stats = ThreadStats::new(plan.histogram_us);
    let setup = set_up(plan);
    let ok = setup.is_ok();
    if ready.send((plan.index, setup)).is_err() || !ok || start.recv() != Ok(true) {
        return Measured {
            stats,
            elapsed: Duration::ZERO,
        };
    }
    let began = Instant::now();
    let mut periods: Box<dyn Periods> = if let Some(clock) = plan.backend.thread_clock() {
        let start = clock.now();
        let spec = methods::of_strategy(plan.strategy);
        Box::new(MockPeriods {
            method: plan
                .backend
                .sync_method(spec, Some(&clock), plan.index as u64)
                .expect("every method has a stand-in (a test of the mock checks it)"),
            grid: Grid::new(start + plan.interval, plan.interval)
                .expect("the interval is not zero"),
            clock,
            start,
        })
    } else {
        let start = began;
        let mut grid =
            Grid::new(start + plan.interval, plan.interval).expect("the interval is not zero");
        grid.set_policy(MissedTickPolicy::Skip);
        Box::new(TickerPeriods {
            grid,
            sleeper: Sleeper::new(plan.strategy),
            start,
        })
    };
    let end = match plan.stop {
        Stop::Duration(d) => began.checked_add(d),
        Stop::Loops(_) => None,
    };
    let stop =
        |now: Instant| interrupted.load(Ordering::Relaxed) || end.is_some_and(|end| now >= end);
    loop {
        let Some(period) = periods.next(&stop) else {
            // Stopped in a wait (real runs only): the grid ran until now.
            return Measured {
                stats,
                elapsed: began.elapsed(),
            };
        };
        stats.record(period.lateness, period.missed);
        live.cycles.store(stats.cycles, Ordering::Relaxed);
        live.max_us.store(stats.max_us, Ordering::Relaxed);
        let done = match plan.stop {
            Stop::Loops(n) => stats.cycles >= n,
            Stop::Duration(d) => period.elapsed >= d,
        };
        if done || interrupted.load(Ordering::Relaxed) {
            return Measured {
                stats,
                elapsed: period.elapsed,
            };
        }
    }
}
