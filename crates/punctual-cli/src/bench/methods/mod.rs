//! One file per method. To add one: write a file with a `pub const SPEC: MethodSpec` (every
//! part it has), declare it here, list it in `registry::METHODS` and give its stand-ins
//! their profiles in `bench/mock/profiles.rs` (`SYNC` for a single-thread part, `SCALE`
//! for a scale part; a test fails until each part has one); an OS's own primitive calls it
//! through `sys::waits` (no `cfg` here). A method reaches only the leaf (`bench/method.rs`
//! and its siblings) and the other methods: not the registry, a mode or a worker.

pub mod async_io;
pub mod async_mt;
pub mod async_mtw;
pub mod async_native;
pub mod async_rt;
pub mod async_spin;
pub mod hybrid;
pub mod native;
pub mod spin;
pub mod spin_sleep;
pub mod std_sleep;
pub mod tokio;
pub mod tokio_mt;

// The OS's own ways to wait (the `os` group): each compiles everywhere, runs where its
// spec's `runs_on` says, and calls the OS through `sys::waits`.
pub mod epoll;
pub mod hybrid_fixed;
pub mod kqueue;
pub mod nanosleep;
mod os_wait;
pub mod poll;
pub mod sched_yield;
pub mod select;
pub mod sleep_ms;
pub mod sleep_ms_period1;
mod timeout;
pub mod timerfd;
pub mod usleep;
pub mod waitable_timer;

use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig, SpinTail};
use punctual::{Sleeper, Strategy};

use super::method::{MethodSpec, SpinCounts, WaitMethod};
use crate::units::format_duration;

/// punctual's `strategy` as the wait table has it (`punctual grid`'s mock stands in for a
/// strategy with its method's stand-in).
pub fn of_strategy(strategy: Strategy) -> &'static MethodSpec {
    match strategy {
        Strategy::Native => &native::SPEC,
        Strategy::Hybrid => &hybrid::SPEC,
        Strategy::Spin => &spin::SPEC,
    }
}

/// punctual's own strategies all wait the same way; only the sleeper differs.
pub struct Punctual(pub Sleeper);

impl WaitMethod for Punctual {
    #[inline]
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        Some(self.0.sleep_until(deadline).woke())
    }

    fn spin_counts(&self) -> Option<SpinCounts> {
        let stats = self.0.stats();
        (self.0.strategy() == punctual::Strategy::Hybrid).then_some(SpinCounts {
            sleeps: stats.sleeps,
            spun: stats.spun,
            capped: stats.capped,
            native_only: stats.native_only,
        })
    }

    fn note(&self) -> Option<String> {
        let stats = self.0.stats();
        (self.0.strategy() == punctual::Strategy::Hybrid && stats.sleeps > 0).then(|| {
            format!(
                "hybrid: last margin {}; so far, of {} waits {} spun, {} had the margin capped by the CPU budget, {} were native only, {} native parts overran",
                format_duration(self.0.margin()),
                stats.sleeps,
                stats.spun,
                stats.capped,
                stats.native_only,
                stats.native_late
            )
        })
    }
}

/// punctual's async timers as a program would await them: a future on a tokio
/// current-thread runtime (the executor of the `tokio` peer), driven by the measuring
/// thread. The driver is the method's own, so its thread's CPU time is the method's.
pub struct AsyncPunctual {
    name: &'static str,
    runtime: ::tokio::runtime::Runtime,
    driver: Driver,
    last_wait: Duration,
}

impl AsyncPunctual {
    pub fn new(name: &'static str, tail: SpinTail) -> anyhow::Result<AsyncPunctual> {
        Ok(AsyncPunctual {
            name,
            runtime: ::tokio::runtime::Builder::new_current_thread().build()?,
            driver: Driver::new(DriverConfig::new().with_spin_tail(tail))?,
            last_wait: Duration::ZERO,
        })
    }
}

impl WaitMethod for AsyncPunctual {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        self.last_wait = deadline.saturating_duration_since(Instant::now());
        self.runtime.block_on(self.driver.sleep_until(deadline));
        None
    }

    fn helper_cpu(&self) -> Duration {
        self.driver.cpu_time().unwrap_or_default()
    }

    fn spin_counts(&self) -> Option<SpinCounts> {
        let stats = self.driver.stats();
        (self.driver.config().spin_tail() != SpinTail::None).then_some(SpinCounts {
            sleeps: stats.wakes,
            spun: stats.spun,
            capped: stats.capped,
            native_only: stats.native_only,
        })
    }

    fn note(&self) -> Option<String> {
        let stats = self.driver.stats();
        if stats.wakes == 0 {
            return None;
        }
        let fired = format!(
            "{}: the driver fired {} timers {} late on average (the rest is the executor's wake)",
            self.name,
            stats.wakes,
            format_duration(stats.fire_lateness_total / stats.wakes.max(1) as u32),
        );
        if self.driver.config().spin_tail() == SpinTail::None {
            return Some(fired);
        }
        Some(format!(
            "{fired}; margin now {}; so far {} sleeps spun, {} had the margin capped by the CPU budget, {} had none, {} margins fell short",
            format_duration(self.driver.plan(self.last_wait).margin()),
            stats.spun,
            stats.capped,
            stats.native_only,
            stats.margin_overrun
        ))
    }
}
