//! The hand-off from the reader thread to the timer thread: a batch of commands under a
//! mutex, a flag the timer thread checks while it spins, and a doorbell it blocks on.
//!
//! The reader posts once per burst of input (when its buffer holds no further whole frame),
//! not once per request, so a thousand requests read together cost one lock and one ring.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use super::wire::{Malformed, Request};
use crate::sys::{self, Bell};

/// What the reader hands over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    /// A request, with the port's clock when its frame was read.
    Serve { request: Request, received_ns: i64 },
    /// A message that could not be decoded: it gets an error frame.
    Reject(Malformed),
}

/// Commands in flight from the reader to the timer thread.
pub(crate) struct Inbox {
    mail: Mutex<Vec<Command>>,
    has_mail: AtomicBool,
    bell: sys::Doorbell,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox")
            .field("has_mail", &self.has_mail)
            .finish_non_exhaustive()
    }
}

impl Inbox {
    /// An empty inbox.
    pub(crate) fn new() -> io::Result<Inbox> {
        Ok(Inbox {
            mail: Mutex::new(Vec::new()),
            has_mail: AtomicBool::new(false),
            bell: sys::Doorbell::new()?,
        })
    }

    /// Moves `batch` into the inbox and wakes the timer thread.
    pub(crate) fn post(&self, batch: &mut Vec<Command>) {
        if batch.is_empty() {
            return;
        }
        self.mail
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .append(batch);
        self.has_mail.store(true, Ordering::Release);
        self.bell.ring();
    }

    /// Moves everything posted into `into`.
    pub(crate) fn take(&self, into: &mut Vec<Command>) {
        if !self.has_mail() {
            return;
        }
        let mut mail = self.mail.lock().unwrap_or_else(PoisonError::into_inner);
        self.has_mail.store(false, Ordering::Relaxed);
        into.append(&mut mail);
    }

    /// Whether something was posted since the last [`Inbox::take`]; cheap enough to call
    /// on every turn of a spin.
    pub(crate) fn has_mail(&self) -> bool {
        self.has_mail.load(Ordering::Acquire)
    }

    /// Blocks until mail arrives or about `deadline`; may return early (re-read the clock).
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) {
        if !self.has_mail() {
            self.bell.wait_until(deadline);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;

    use super::*;

    #[test]
    fn posts_arrive_whole_and_in_order() {
        let inbox = Arc::new(Inbox::new().unwrap());
        let poster = Arc::clone(&inbox);
        let handle = thread::spawn(move || {
            for id in 0..1_000u64 {
                let mut batch = vec![Command::Serve {
                    request: Request::Now { id },
                    received_ns: 0,
                }];
                poster.post(&mut batch);
                assert!(batch.is_empty());
            }
        });
        let mut got = Vec::new();
        while got.len() < 1_000 {
            inbox.wait_until(None);
            inbox.take(&mut got);
        }
        handle.join().unwrap();
        for (expected, command) in got.iter().enumerate() {
            assert_eq!(
                *command,
                Command::Serve {
                    request: Request::Now {
                        id: expected as u64
                    },
                    received_ns: 0
                }
            );
        }
    }
}
