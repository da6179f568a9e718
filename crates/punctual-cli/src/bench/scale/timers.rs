//! The timers the scale mode runs N of at once, one task each. A timer here is what a task
//! awaits; to add one, implement [`ScaleTimer`] and list it in [`SCALE_METHODS`].

use std::future::Future;
use std::mem::size_of;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig, DriverStats, SpinTail};

use super::worker::{self, WorkerArgs};
use super::ScaleResult;
use crate::bench::method;
use crate::bench::methods::async_spin;

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

    /// The real-time priority to run the executor's thread at while deadlines run, if any.
    fn executor_priority(&self) -> Option<i32> {
        None
    }

    /// What the OS said to the driver thread's real-time priority, if one was asked.
    fn driver_scheduling(&self) -> Option<Result<String, String>> {
        None
    }
}

/// punctual's futures on a private driver, so its thread's CPU is the method's alone; with
/// a real-time priority, the executor's thread is raised to it while the deadlines run.
#[derive(Clone)]
pub struct PunctualTimer {
    driver: Driver,
    executor_priority: Option<i32>,
}

impl PunctualTimer {
    pub fn new(config: DriverConfig) -> anyhow::Result<PunctualTimer> {
        Ok(PunctualTimer {
            driver: Driver::new(config)?,
            executor_priority: None,
        })
    }

    /// The driver thread and, while the deadlines run, the executor's at `priority`.
    pub fn realtime(priority: i32) -> anyhow::Result<PunctualTimer> {
        Ok(PunctualTimer {
            driver: Driver::new(DriverConfig::new().with_realtime_priority(priority))?,
            executor_priority: Some(priority),
        })
    }
}

/// The real-time priority of `async-rt`'s threads: low among real-time priorities, high
/// above every time-sharing thread.
pub const RT_PRIORITY: i32 = 10;

impl ScaleTimer for PunctualTimer {
    type Sleep = punctual::future::Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        self.driver.sleep_until(deadline)
    }

    fn driver_cpu(&self) -> Option<Duration> {
        self.driver.cpu_time()
    }

    /// The `Sleep`, wherever its task keeps it, and its share of the driver's storage.
    fn timer_bytes(&self) -> u64 {
        let pending = self.driver.pending().max(1);
        (size_of::<punctual::future::Sleep>() + self.driver.allocated_bytes() / pending) as u64
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

/// A method the scale mode knows by name.
#[derive(Debug)]
pub struct ScaleSpec {
    /// The name `--methods` takes (the same as the wait table's method of that timer, where
    /// it has one).
    pub name: &'static str,
    /// One line for `--list-methods`.
    pub about: &'static str,
    /// Whether this is one of punctual's own.
    pub ours: bool,
    /// Measures N of this timer; runs in a process of its own.
    pub measure: fn(&WorkerArgs) -> anyhow::Result<ScaleResult>,
}

/// Every method the scale mode can run, in table order.
pub const SCALE_METHODS: &[ScaleSpec] = &[
    ScaleSpec {
        name: "async",
        about: "punctual's futures on their own driver, default configuration",
        ours: true,
        measure: |args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            worker::measure(PunctualTimer::new(config)?, args)
        },
    },
    ScaleSpec {
        name: "async-rt",
        about: "async, the driver thread at SCHED_FIFO 10 and the executor's while deadlines run (where allowed)",
        ours: true,
        measure: |args| worker::measure(PunctualTimer::realtime(RT_PRIORITY)?, args),
    },
    ScaleSpec {
        name: "async-spin",
        about: "async with a learned spin tail",
        ours: true,
        measure: |args| {
            let config = DriverConfig::new().with_spin_tail(async_spin::tail());
            worker::measure(PunctualTimer::new(config)?, args)
        },
    },
    ScaleSpec {
        name: "tokio",
        about: "tokio::time::sleep_until",
        ours: false,
        measure: |args| worker::measure(TokioTimer, args),
    },
];

/// Looks a scale method up by name.
pub fn find(name: &str) -> Option<&'static ScaleSpec> {
    SCALE_METHODS.iter().find(|m| m.name == name)
}

impl ScaleSpec {
    /// Whether the wait table has no method of this name.
    pub fn scale_only(&self) -> bool {
        method::find(self.name).is_none()
    }
}

/// The scale mode's methods the wait table does not have, for error messages.
pub fn scale_only_names() -> String {
    SCALE_METHODS
        .iter()
        .filter(|m| m.scale_only())
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `async, async-rt, async-spin, tokio` for error messages.
pub fn names() -> String {
    SCALE_METHODS
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}
