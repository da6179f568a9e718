//! Anything else: std's stdio and a `Condvar` doorbell.
//!
//! The doorbell serves Linux and macOS too: std's `Condvar::wait_timeout` is a futex wait
//! with a `CLOCK_MONOTONIC` timeout on Linux (as precise as `clock_nanosleep` once the
//! thread's timer slack is 1 ns) and `pthread_cond_timedwait` on macOS. Windows has its
//! own, since its condition variables count milliseconds.

use std::io::{self, Read, Write};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use super::{Bell, Platform};

#[allow(dead_code)]
pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {}

    fn input() -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(io::stdin()))
    }

    fn output() -> io::Result<Box<dyn Write + Send>> {
        Ok(Box::new(io::stdout()))
    }

    fn exit_when_output_closed() -> bool {
        false
    }
}

/// A flag under a mutex, and a condvar to wait for it.
#[derive(Debug, Default)]
pub(crate) struct Doorbell {
    rung: Mutex<bool>,
    bell: Condvar,
}

impl Bell for Doorbell {
    fn new() -> io::Result<Doorbell> {
        Ok(Doorbell::default())
    }

    fn ring(&self) {
        *self.rung.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.bell.notify_one();
    }

    fn wait_until(&self, deadline: Option<Instant>) {
        let mut rung = self.rung.lock().unwrap_or_else(PoisonError::into_inner);
        while !*rung {
            rung = match deadline {
                None => self.bell.wait(rung).unwrap_or_else(PoisonError::into_inner),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return;
                    }
                    self.bell
                        .wait_timeout(rung, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
        *rung = false;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_out_without_a_ring_and_returns_on_one() {
        let bell = Arc::new(Doorbell::new().unwrap());
        let deadline = Instant::now() + Duration::from_millis(2);
        bell.wait_until(Some(deadline));
        assert!(Instant::now() >= deadline);

        bell.ring();
        bell.wait_until(None); // rung before: returns at once

        let ringer = Arc::clone(&bell);
        let handle = thread::spawn(move || ringer.ring());
        bell.wait_until(None);
        handle.join().unwrap();
        assert!(!Os::exit_when_output_closed());
    }
}
