//! The timer thread of protocol 2: serves the commands the reader posts, fires the wakes
//! that are due, writes the answers, and in between blocks or spins until the next start.
//!
//! It writes only when it is about to wait: every answer produced in one pass (all the
//! wakes due at once, the replies to a burst of requests) goes out in one `write`, packed
//! into as few frames as fit. Blocking is on the [`Inbox`] doorbell with a precise timeout,
//! so a request for an earlier deadline cuts a sleep short; the spin tail polls the inbox
//! flag, so it can take new requests while it spins.
//!
//! Why not `punctual::future::Driver`: its timers fire on the driver's own thread, which
//! then has to wake this one to write the answer, adding a thread wake-up's latency to every
//! answer (`examples/timer_thread.rs` measures it against this thread's own wait);
//! per-request spin tails would still need a spinning phase here; and `--above` could not
//! follow a priority change on a thread it does not own.

use std::hint;
use std::io::{self, Write};
use std::sync::Arc;

use super::inbox::{Command, Inbox};
use super::probing::{self, Prober};
use super::queue::{Next, Refused, TimerQueue};
use super::wire::{Answer, Malformed, Reason, Request, TimerFacts};
use crate::clock::PortClock;
use crate::frame::FrameWriter;
use crate::priority::{self, Priority};

/// The timer thread's state.
#[derive(Debug)]
pub(crate) struct Scheduler<W: Write> {
    pub(crate) clock: PortClock,
    pub(crate) queue: TimerQueue,
    pub(crate) inbox: Arc<Inbox>,
    pub(crate) out: FrameWriter<W>,
    /// The port-wide floor of every wake's spin tail (`--spin`).
    pub(crate) port_spin_ns: u64,
    pub(crate) priority: Priority,
    pub(crate) prober: Prober,
}

impl<W: Write> Scheduler<W> {
    /// Serves until a write fails: the owner has gone, and that error is returned.
    pub(crate) fn run(mut self) -> io::Error {
        let mut bursts = Vec::new();
        let mut message = Vec::with_capacity(32);
        loop {
            // Read before taking the mail: whatever comes later is stamped later (see
            // `inbox.rs`), so firing only what is due by now keeps the deadline order.
            let due_ns = self.clock.now_ns();
            self.inbox.take(&mut bursts);
            for burst in bursts.drain(..) {
                for command in burst.commands {
                    self.serve(command, burst.posted_ns, &mut message);
                }
            }
            let now_ns = self.clock.now_ns();
            let out = &mut self.out;
            self.queue.fire_due(due_ns, |id, deadline_ns| {
                let lateness_ns =
                    u64::try_from(i128::from(now_ns) - i128::from(deadline_ns)).unwrap_or(u64::MAX);
                push(
                    out,
                    &mut message,
                    Answer::Woke {
                        id,
                        deadline_ns,
                        lateness_ns,
                    },
                );
            });
            if !self.out.is_empty() {
                if let Err(e) = self.out.flush() {
                    return e;
                }
                self.priority.follow_now_and_then();
            }
            match self.queue.next() {
                Next::SpinUntil(deadline_ns) => {
                    while self.clock.now_ns() < deadline_ns && !self.inbox.has_mail() {
                        hint::spin_loop();
                    }
                }
                Next::SleepUntil(start_ns) => {
                    self.inbox.wait_until(self.clock.instant(start_ns));
                }
                Next::Idle => self.inbox.wait_until(None),
            }
        }
    }

    /// Serves one command of a burst posted at `posted_ns`.
    fn serve(&mut self, command: Command, posted_ns: i64, message: &mut Vec<u8>) {
        let answer = match command {
            Command::Reject(Malformed { reason, id }) => Some(Answer::Error { reason, id }),
            Command::Reply(answer) => Some(answer),
            Command::Serve(request) => match request {
                Request::WakeAfter {
                    id,
                    duration_ns,
                    spin_ns,
                } => self.queue_wake(id, posted_ns.saturating_add(duration_ns.max(0)), spin_ns),
                Request::WakeAt {
                    id,
                    deadline_ns,
                    spin_ns,
                } => self.queue_wake(id, deadline_ns, spin_ns),
                Request::Cancel { id } => Some(Answer::Cancelled {
                    id,
                    pending: self.queue.cancel(id),
                }),
                Request::Now { id } => Some(Answer::Clock {
                    id,
                    now_ns: self.clock.now_ns(),
                }),
                Request::TimerInfo { id } => Some(Answer::Timer {
                    id,
                    timer: self.timer(),
                }),
                Request::Probe { id, samples } => self.prober.start(id, samples, &self.inbox),
                Request::Verdict { id, costs } => Some(probing::verdict(id, costs)),
                Request::CheatSheet {
                    id,
                    quantum_ns,
                    bands,
                } => Some(probing::cheat_sheet(id, quantum_ns, bands)),
            },
        };
        if let Some(answer) = answer {
            push(&mut self.out, message, answer);
        }
    }

    /// The timer this thread waits on, as it uses it: read here, on the timer thread, for
    /// its own timer slack and scheduling.
    fn timer(&self) -> TimerFacts {
        let timer = self.inbox.timer();
        let ns = |d: std::time::Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX - 1);
        TimerFacts::new(
            timer.mechanism,
            timer.high_resolution,
            timer.resolution.map(ns),
            priority::timer_slack().map(ns),
            timer.degraded.as_deref(),
        )
    }

    /// Queues a wake; an error answer if the queue refuses it.
    fn queue_wake(&mut self, id: u64, deadline_ns: i64, spin_ns: u32) -> Option<Answer> {
        let spin_ns = u64::from(spin_ns).max(self.port_spin_ns);
        let reason = match self.queue.insert(id, deadline_ns, spin_ns) {
            Ok(()) => return None,
            Err(Refused::Duplicate) => Reason::DuplicateId,
            Err(Refused::Full) => Reason::TooManyPending,
        };
        Some(Answer::Error {
            reason,
            id: Some(id),
        })
    }
}

fn push<W: Write>(out: &mut FrameWriter<W>, message: &mut Vec<u8>, answer: Answer) {
    message.clear();
    answer.encode(message);
    out.push(message);
}
