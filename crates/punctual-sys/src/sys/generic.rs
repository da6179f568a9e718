//! Anything else: `std::thread::sleep`, whatever the platform makes of it, a
//! `Condvar::wait_timeout` for the interruptible wait, and std's stdio.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`Platform`]
//! and [`Interruptible`].

use std::io::{self, Read, Write};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::{CoarseClock, Interruptible, NativeTimer, Platform, Woken};

pub(crate) struct Os;

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_millis(2);

    fn wait_until(deadline: Instant, now: Instant) {
        std::thread::sleep(deadline.saturating_duration_since(now));
    }

    fn native_timer() -> NativeTimer {
        NativeTimer {
            mechanism: "std::thread::sleep",
            high_resolution: false,
            resolution: None,
            degraded: Some("no platform backend: std::thread::sleep, resolution unknown".into()),
        }
    }

    fn thread_cpu_time() -> Option<Duration> {
        None
    }

    fn process_cpu_time() -> Option<Duration> {
        None
    }

    fn coarse_clock() -> Option<CoarseClock> {
        None
    }

    fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(io::stdin()))
    }

    fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
        Ok(Box::new(io::stdout()))
    }
}

/// A flag for notifications, and a condition variable to wait on it with a timeout.
pub(crate) struct Waiter {
    notified: Mutex<bool>,
    condvar: Condvar,
}

impl Interruptible for Waiter {
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

    fn timer(&self) -> NativeTimer {
        NativeTimer {
            mechanism: "Condvar::wait_timeout",
            ..Os::native_timer()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_waiter_keeps_the_contract() {
        crate::tests::check_waiter::<Waiter>();
    }

    #[test]
    fn fallback_is_not_early_once_rechecked() {
        crate::tests::check_native_wait(Os::wait_until);
        assert_eq!(Os::native_timer().mechanism, "std::thread::sleep");
    }
}
