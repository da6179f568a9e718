//! Anything else: `std::thread::sleep`, whatever the platform makes of it, and for the async
//! driver a `Condvar::wait_timeout`.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`Platform`]
//! and [`DriverWait`].

use std::io;
use std::ops::RangeInclusive;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{DriverWait, NoDmaLatency, Platform, RealTime, Woken, PORTABLE_PRIORITIES};
use crate::rt::{RtError, RtThrottling, Scheduling};
use crate::TimerInfo;

pub(crate) struct Os;

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_millis(2);

    fn wait_until(deadline: Instant, now: Instant) {
        std::thread::sleep(deadline.saturating_duration_since(now));
    }

    fn timer_info() -> TimerInfo {
        TimerInfo {
            mechanism: "std::thread::sleep",
            high_resolution: false,
            resolution: None,
            timer_slack: None,
            degraded: Some("no platform backend: std::thread::sleep, resolution unknown".into()),
        }
    }

    fn thread_cpu_time() -> Option<Duration> {
        None
    }
}

/// A flag for notifications, and a condition variable to wait on it with a timeout.
pub(crate) struct Waiter {
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl DriverWait for Waiter {
    fn new() -> io::Result<Waiter> {
        Ok(Waiter {
            notified: Mutex::new(false),
            condvar: Condvar::new(),
        })
    }

    fn wait(&self, deadline: Option<Instant>) -> Woken {
        // Nothing runs under this lock that can panic, so a poisoned lock holds a good flag.
        let mut notified = self.notified.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if std::mem::take(&mut *notified) {
                return Woken::Other;
            }
            notified = match deadline {
                None => self
                    .condvar
                    .wait(notified)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Woken::TimedOut;
                    }
                    self.condvar
                        .wait_timeout(notified, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    fn notify(&self) {
        *self.notified.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.condvar.notify_one();
    }

    fn timer_info(&self) -> TimerInfo {
        TimerInfo {
            mechanism: "Condvar::wait_timeout",
            ..Os::timer_info()
        }
    }
}

fn unsupported<T>(what: &'static str) -> Result<T, RtError> {
    Err(RtError::Unsupported {
        what,
        platform: "this platform (no punctual backend)",
    })
}

impl RealTime for Os {
    type DmaLatency = NoDmaLatency;

    fn timer_slack() -> Result<Duration, RtError> {
        unsupported("timer slack")
    }

    fn set_timer_slack(_: Duration) -> Result<(), RtError> {
        unsupported("timer slack")
    }

    fn current_scheduling() -> Result<Scheduling, RtError> {
        unsupported("reading the scheduling policy")
    }

    fn scheduling_of(_: u32) -> Result<Scheduling, RtError> {
        unsupported("reading another process's scheduling policy")
    }

    fn priority_range() -> RangeInclusive<i32> {
        PORTABLE_PRIORITIES
    }

    fn set_realtime_priority(_: i32) -> Result<Scheduling, RtError> {
        unsupported("real-time priority")
    }

    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        unsupported("setting the scheduling policy")
    }

    fn hold_dma_latency(_: i32) -> Result<NoDmaLatency, RtError> {
        unsupported("a CPU wake-up latency request")
    }

    fn lock_memory() -> Result<(), RtError> {
        unsupported("locking memory")
    }

    fn unlock_memory() -> Result<(), RtError> {
        unsupported("locking memory")
    }

    fn set_affinity(_: &[usize]) -> Result<(), RtError> {
        unsupported("CPU affinity")
    }

    fn available_cpus() -> Result<Vec<usize>, RtError> {
        unsupported("CPU affinity")
    }

    fn keep_timer_resolution() -> Result<(), RtError> {
        unsupported("opting out of timer-resolution power throttling")
    }

    fn rt_throttling() -> Option<RtThrottling> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_is_not_early_once_rechecked() {
        for micros in [0, 1, 100, 1_500] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            loop {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                Os::wait_until(deadline, now);
            }
        }
        assert_eq!(Os::timer_info().mechanism, "std::thread::sleep");
    }

    #[test]
    fn fallback_reports_every_control_unsupported() {
        let unsupported = |r: Result<(), RtError>| matches!(r, Err(RtError::Unsupported { .. }));
        assert!(unsupported(Os::set_realtime_priority(10).map(drop)));
        assert!(unsupported(Os::current_scheduling().map(drop)));
        assert!(unsupported(Os::hold_dma_latency(0).map(drop)));
        assert!(unsupported(Os::lock_memory()));
        assert!(unsupported(Os::set_affinity(&[0])));
        assert!(unsupported(Os::timer_slack().map(drop)));
        assert_eq!(Os::rt_throttling(), None);
        let message = Os::lock_memory().unwrap_err().to_string();
        assert_eq!(
            message,
            "locking memory is not available on this platform (no punctual backend)"
        );
    }
}
