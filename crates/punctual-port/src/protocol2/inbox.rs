//! The hand-off from the reader thread to the timer thread: bursts of commands under a
//! mutex, a flag the timer thread checks while it spins, and a doorbell it blocks on.
//!
//! The reader posts once per burst of input (when its buffer holds no further whole frame),
//! not once per request, so a thousand requests read together cost one lock and one ring.
//!
//! Each burst is stamped with the port's clock under the lock, as it is posted: a
//! WAKE_AFTER counts from that stamp. The timer thread reads the clock before it takes the
//! mail and fires only the wakes due by that reading, so a burst it has not yet taken was
//! stamped later than that reading, and no WAKE_AFTER in it can be due before a wake
//! already fired. Stamping each frame as it was read did not ensure that: a frame could
//! wait in the reader (decoding the rest of its burst, or preempted) past its wakes'
//! deadlines, while the timer thread fired later ones.
//!
//! The inbox holds at most [`MAIL_LIMIT`] commands (plus the burst that crossed it): past
//! that, [`Inbox::post`] waits for the timer thread to take the mail. The timer thread
//! waits in its write while the client does not read the answers, so the reader then
//! stops reading requests, the pipe from the client fills and the client's writes block.
//! That is the port's back-pressure (docs/port-protocol.md): memory stays bounded and
//! nothing is dropped.

use std::io;
use std::mem;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use super::wire::{Answer, Malformed, Request};
use crate::clock::PortClock;
use crate::sys;

/// What the reader (or a probe's thread) hands over.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// A request to serve.
    Serve(Request),
    /// A message that could not be decoded: it gets an error frame.
    Reject(Malformed),
    /// An answer made on another thread (a probe's), written as it is.
    Reply(Answer),
}

/// Commands posted together.
#[derive(Debug, PartialEq)]
pub(crate) struct Burst {
    /// The port's clock when the burst was posted.
    pub(crate) posted_ns: i64,
    pub(crate) commands: Vec<Command>,
}

/// How many commands may wait for the timer thread before the reader stops reading: a
/// couple of MB of them. A client that reads its answers never meets the limit unless the
/// timer thread falls that far behind.
pub(crate) const MAIL_LIMIT: usize = 65_536;

/// The bursts waiting, and how many commands they hold.
#[derive(Debug, Default)]
struct Mail {
    bursts: Vec<Burst>,
    commands: usize,
    /// The reader waits for room: a take must ring `room` (a system call, so only then).
    reader_waits: bool,
}

/// Commands in flight from the reader to the timer thread.
pub(crate) struct Inbox {
    mail: Mutex<Mail>,
    /// Rung when the timer thread takes the mail, for a reader waiting at the limit.
    room: Condvar,
    limit: usize,
    has_mail: AtomicBool,
    bell: sys::Waiter,
    clock: PortClock,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox")
            .field("has_mail", &self.has_mail)
            .finish_non_exhaustive()
    }
}

impl Inbox {
    /// An empty inbox that stamps bursts with `clock` and holds about `limit` commands.
    pub(crate) fn new(clock: PortClock, limit: usize) -> io::Result<Inbox> {
        Ok(Inbox {
            mail: Mutex::new(Mail::default()),
            room: Condvar::new(),
            limit,
            has_mail: AtomicBool::new(false),
            bell: sys::Waiter::new()?,
            clock,
        })
    }

    /// Moves `batch` into the inbox as one burst, stamped now, and wakes the timer thread.
    /// Blocks first while the inbox holds its limit or more, until the timer thread takes
    /// the mail.
    pub(crate) fn post(&self, batch: &mut Vec<Command>) {
        if batch.is_empty() {
            return;
        }
        let commands = mem::replace(batch, Vec::with_capacity(batch.len()));
        {
            let mut mail = self.mail.lock().unwrap_or_else(PoisonError::into_inner);
            while mail.commands >= self.limit {
                mail.reader_waits = true;
                mail = self.room.wait(mail).unwrap_or_else(PoisonError::into_inner);
            }
            // Read under the lock, after any wait: see the module's comment.
            let posted_ns = self.clock.now_ns();
            mail.commands += commands.len();
            mail.bursts.push(Burst {
                posted_ns,
                commands,
            });
        }
        self.has_mail.store(true, Ordering::Release);
        self.bell.notify();
    }

    /// Moves every burst posted into `into`, in the order posted.
    pub(crate) fn take(&self, into: &mut Vec<Burst>) {
        if !self.has_mail() {
            return;
        }
        let reader_waits = {
            let mut mail = self.mail.lock().unwrap_or_else(PoisonError::into_inner);
            self.has_mail.store(false, Ordering::Relaxed);
            into.append(&mut mail.bursts);
            mail.commands = 0;
            mem::take(&mut mail.reader_waits)
        };
        if reader_waits {
            self.room.notify_one();
        }
    }

    /// Whether something was posted since the last [`Inbox::take`]; cheap enough to call
    /// on every turn of a spin.
    pub(crate) fn has_mail(&self) -> bool {
        self.has_mail.load(Ordering::Acquire)
    }

    /// The wait the timer thread blocks on, as the calling thread sees it.
    pub(crate) fn timer(&self) -> punctual_sys::NativeTimer {
        self.bell.timer()
    }

    /// Blocks until mail arrives or about `deadline`; may return early (re-read the clock).
    pub(crate) fn wait_until(&self, deadline: Option<Instant>) {
        if !self.has_mail() {
            self.bell.wait(deadline);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;

    use super::*;

    #[test]
    fn bursts_arrive_whole_in_order_and_stamped_as_posted() {
        let clock = PortClock::start();
        let inbox = Arc::new(Inbox::new(clock, MAIL_LIMIT).unwrap());
        let poster = Arc::clone(&inbox);
        let before_ns = clock.now_ns();
        let handle = thread::spawn(move || {
            for id in 0..1_000u64 {
                let mut batch = vec![Command::Serve(Request::Now { id }); 2];
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
        let after_ns = clock.now_ns();
        let mut last_ns = before_ns;
        for (id, burst) in got.iter().enumerate() {
            let now = Command::Serve(Request::Now { id: id as u64 });
            assert_eq!(burst.commands, [now.clone(), now]);
            assert!((last_ns..=after_ns).contains(&burst.posted_ns), "{burst:?}");
            last_ns = burst.posted_ns;
        }
    }

    #[test]
    fn a_post_at_the_limit_waits_until_the_mail_is_taken() {
        let inbox = Arc::new(Inbox::new(PortClock::start(), 3).unwrap());
        let now = |id| Command::Serve(Request::Now { id });
        // Below the limit a burst goes in whole, even one that crosses it.
        inbox.post(&mut vec![now(0); 2]);
        inbox.post(&mut vec![now(1); 2]);
        let poster = Arc::clone(&inbox);
        let (posted, done) = std::sync::mpsc::channel();
        let handle = thread::spawn(move || {
            poster.post(&mut vec![now(2)]);
            posted.send(()).unwrap();
        });
        assert!(
            done.recv_timeout(std::time::Duration::from_millis(200))
                .is_err(),
            "posted past the limit"
        );
        let mut got = Vec::new();
        inbox.take(&mut got);
        done.recv().unwrap();
        handle.join().unwrap();
        inbox.take(&mut got);
        let commands: Vec<Command> = got.into_iter().flat_map(|b| b.commands).collect();
        assert_eq!(commands, [now(0), now(0), now(1), now(1), now(2)]);
    }
}
