//! The timers the scale mode runs N of at once, one task each. A timer here is what a task
//! awaits; a method's scale part (its `ScaleSpec`, in `bench/methods/`) names one of these by
//! its [`TimerKind`], and the worker builds it.

use std::cell::Cell;
use std::future::Future;
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig, DriverStats};

use crate::bench::method::TimerKind;

/// A timer as a task awaits it, and what the scale mode reads about it.
pub trait ScaleTimer: Clone + Send + Sync + 'static {
    type Sleep: Future + Send + 'static;

    /// A sleep until `deadline`; created inside a task, so inside the runtime.
    fn sleep_until(&self, deadline: Instant) -> Self::Sleep;

    /// CPU time of the timer's own thread, where it has one.
    fn driver_cpu(&self) -> Option<Duration> {
        None
    }

    /// Bytes per pending timer by the library's own accounting, read while all are pending.
    fn timer_bytes(&self) -> u64;

    /// The counters of the timer's own driver thread, where it has one (how late it fired
    /// the timers, before any executor's delay).
    fn driver_stats(&self) -> Option<DriverStats> {
        None
    }

    /// How often the timer's own driver threads went to sleep natively, how many of those
    /// sleeps a registration cut short, and how often a thread waited for a driver's lock,
    /// so far (summed over its drivers); `None` where it has no thread of its own.
    fn driver_sleeps(&self) -> Option<(u64, u64, u64)> {
        self.driver_stats()
            .map(|stats| (stats.waits, stats.interrupts, stats.lock_waits))
    }

    /// The real-time priority to run the executor's thread at while deadlines run, if any.
    fn executor_priority(&self) -> Option<i32> {
        None
    }

    /// What the OS said to the driver thread's real-time priority, if one was asked.
    fn driver_scheduling(&self) -> Option<Result<String, String>> {
        None
    }
}

/// Runs `measure` on the timer `kind` names, built here (a driver per worker: `workers` of
/// them), whatever its type.
pub fn with_timer<M: MeasureTimer>(
    kind: TimerKind,
    workers: usize,
    measure: M,
) -> anyhow::Result<M::Output> {
    Ok(match kind {
        TimerKind::Driver(config) => measure.measure(PunctualTimer::new(config())?),
        TimerKind::DriverPerWorker(config) => {
            measure.measure(PerWorkerTimer::new(config(), workers)?)
        }
        TimerKind::Tokio => measure.measure(TokioTimer),
    })
}

/// What a worker does with its method's timer: measure it, compiled for the timer's type.
pub trait MeasureTimer {
    type Output;

    fn measure<T: ScaleTimer>(self, timer: T) -> Self::Output;
}

/// punctual's futures on a private driver, so its thread's CPU is the method's alone; with
/// a real-time priority in its configuration, the executor's thread is raised to the same
/// while the deadlines run.
#[derive(Clone)]
pub struct PunctualTimer {
    driver: Driver,
    executor_priority: Option<i32>,
}

impl PunctualTimer {
    pub fn new(config: DriverConfig) -> anyhow::Result<PunctualTimer> {
        Ok(PunctualTimer {
            driver: Driver::new(config)?,
            executor_priority: config.realtime_priority(),
        })
    }
}

impl ScaleTimer for PunctualTimer {
    type Sleep = punctual::future::Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        self.driver.sleep_until(deadline)
    }

    fn driver_cpu(&self) -> Option<Duration> {
        self.driver.cpu_time()
    }

    fn timer_bytes(&self) -> u64 {
        timer_bytes(std::slice::from_ref(&self.driver))
    }

    fn driver_stats(&self) -> Option<DriverStats> {
        Some(self.driver.stats())
    }

    fn executor_priority(&self) -> Option<i32> {
        self.executor_priority
    }

    fn driver_scheduling(&self) -> Option<Result<String, String>> {
        self.driver.realtime_scheduling().map(|granted| {
            granted
                .map(|scheduling| scheduling.to_string())
                .map_err(|refused| refused.to_string())
        })
    }
}

/// punctual's futures on a private driver per thread that creates sleeps: on a
/// multi-thread runtime, one driver per runtime worker (each worker's sleeps on its own
/// driver, wherever their tasks move afterwards). The drivers are started up front, one per
/// CPU, and handed out to threads in the order they first ask.
#[derive(Clone)]
pub struct PerWorkerTimer {
    drivers: Arc<[Driver]>,
    handed_out: Arc<AtomicUsize>,
}

impl PerWorkerTimer {
    pub fn new(config: DriverConfig, drivers: usize) -> anyhow::Result<PerWorkerTimer> {
        Ok(PerWorkerTimer {
            drivers: (0..drivers.max(1))
                .map(|_| Driver::new(config))
                .collect::<Result<_, _>>()?,
            handed_out: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The calling thread's driver: the next one not handed out yet on its first call.
    fn driver(&self) -> &Driver {
        thread_local! {
            static INDEX: Cell<Option<usize>> = const { Cell::new(None) };
        }
        let index = INDEX.with(|index| {
            let mine = index
                .get()
                .unwrap_or_else(|| self.handed_out.fetch_add(1, Relaxed));
            index.set(Some(mine));
            mine
        });
        &self.drivers[index % self.drivers.len()]
    }
}

impl ScaleTimer for PerWorkerTimer {
    type Sleep = punctual::future::Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        self.driver().sleep_until(deadline)
    }

    /// All the drivers' threads together.
    fn driver_cpu(&self) -> Option<Duration> {
        self.drivers.iter().map(Driver::cpu_time).sum()
    }

    fn driver_sleeps(&self) -> Option<(u64, u64, u64)> {
        Some(
            self.drivers
                .iter()
                .map(Driver::stats)
                .fold((0, 0, 0), |(w, i, l), s| {
                    (w + s.waits, i + s.interrupts, l + s.lock_waits)
                }),
        )
    }

    fn timer_bytes(&self) -> u64 {
        timer_bytes(&self.drivers)
    }
}

/// A punctual timer's bytes: the `Sleep`, wherever its task keeps it, and its share of its
/// drivers' storage.
fn timer_bytes(drivers: &[Driver]) -> u64 {
    let pending: usize = drivers.iter().map(Driver::pending).sum();
    let bytes: usize = drivers.iter().map(Driver::allocated_bytes).sum();
    (size_of::<punctual::future::Sleep>() + bytes / pending.max(1)) as u64
}

/// `tokio::time`: its wheel entry lives inside the `Sleep`, and its wheel runs on the
/// executor's thread.
#[derive(Clone, Copy)]
pub struct TokioTimer;

impl ScaleTimer for TokioTimer {
    type Sleep = tokio::time::Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        tokio::time::sleep_until(deadline.into())
    }

    fn timer_bytes(&self) -> u64 {
        size_of::<tokio::time::Sleep>() as u64
    }
}
