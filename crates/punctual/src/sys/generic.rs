//! Anything else: `std::thread::sleep`, whatever the platform makes of it, and for the async
//! driver a `Condvar::wait_timeout`.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`Platform`]
//! and [`DriverWait`].

use std::io;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{DriverWait, Platform, Woken};
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
}
