//! Real-time scheduling for the port: the one module that decides and follows priorities,
//! on top of [`punctual::rt`].
//!
//! Priorities belong to threads, so every thread that must wake on time calls
//! [`Priority::apply`] for itself: protocol 1's only thread; protocol 2's timer thread and
//! its reader. Each first cuts its timer slack to 1 ns, as nanosleep does (Linux would
//! otherwise fire a sleeper's timer up to 50 us late to batch wake-ups), then asks for
//! real time:
//!
//! | asked               | Linux                                   | macOS, Windows                      | refused          |
//! |---------------------|-----------------------------------------|-------------------------------------|------------------|
//! | nothing             | lowest SCHED_FIFO priority              | time-constraint / time-critical     | note, carry on   |
//! | `--above PID`       | one above PID's FIFO priority, followed | as for nothing                      | note, carry on   |
//! | `--priority N`      | SCHED_FIFO N                            | time-constraint / time-critical     | exit 3           |
//! | `--no-realtime`     | unchanged                               | unchanged                           |                  |

use std::fmt;
use std::time::{Duration, Instant};

use punctual::rt::{self, PriorityAbove, RtError};

use crate::exit::Exit;

/// The calling thread's timer slack in force: zero under a real-time policy, which Linux
/// runs without slack; `None` where threads have none (off Linux) or it cannot be read.
pub(crate) fn timer_slack() -> Option<Duration> {
    rt::timer_slack().ok()
}

/// What the command line asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Realtime {
    /// No flag: the lowest real-time priority where allowed, else carry on.
    Lowest,
    /// `--above PID`: one above that process's priority, following it.
    Above(u32),
    /// `--priority N`: that priority, or exit 3.
    Fixed(i32),
    /// `--no-realtime`.
    Off,
}

/// `--priority N` was refused: the program exits 3.
#[derive(Debug)]
pub(crate) struct Refused(RtError);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--priority refused: {}", self.0)
    }
}

/// How often protocol 2 re-reads a followed priority: its answers come in bursts, and two
/// system calls per burst would be waste.
const FOLLOW_EVERY: Duration = Duration::from_millis(10);

/// The priority a thread holds, and what it follows. Not `Send`: it belongs to the thread
/// that applied it.
#[derive(Debug)]
pub(crate) struct Priority {
    above: Option<PriorityAbove>,
    note: Option<String>,
    last_follow: Option<Instant>,
}

impl Priority {
    /// Applies `realtime` to the calling thread, after cutting its timer slack to 1 ns.
    ///
    /// # Errors
    ///
    /// [`Refused`] when `--priority N` is refused; anything else that is refused is
    /// carried on without, and said in [`Priority::note`].
    pub(crate) fn apply(realtime: Realtime) -> Result<Priority, Refused> {
        let mut notes = Vec::new();
        match rt::set_timer_slack(Duration::from_nanos(1)) {
            Ok(()) | Err(RtError::Unsupported { .. }) => {}
            Err(e) => notes.push(format!("timer slack left as it was: {e}")),
        }
        let mut above = None;
        match realtime {
            Realtime::Off => {}
            Realtime::Fixed(priority) => {
                rt::set_realtime_priority(priority).map_err(Refused)?;
            }
            Realtime::Above(pid) => match PriorityAbove::new(pid) {
                Ok(held) => above = Some(held),
                // Only Linux has priorities to outrank; elsewhere real time is one level.
                Err(RtError::Unsupported { .. }) => notes.extend(lowest()),
                Err(e @ RtError::NoSuchProcess(_)) => {
                    notes.push(format!("{e}; taking the lowest real-time priority"));
                    notes.extend(lowest());
                }
                Err(e) => notes.push(format!("carrying on without real time: {e}")),
            },
            Realtime::Lowest => notes.extend(lowest()),
        }
        Ok(Priority {
            above,
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            last_follow: None,
        })
    }

    /// [`Priority::apply`], saying on stderr what was refused: the note if carried on
    /// (when `say_note`), the refusal if not.
    ///
    /// # Errors
    ///
    /// [`Exit::PriorityRefused`] when `--priority N` is refused.
    pub(crate) fn apply_or_exit(realtime: Realtime, say_note: bool) -> Result<Priority, Exit> {
        match Priority::apply(realtime) {
            Ok(priority) => {
                if let (true, Some(note)) = (say_note, &priority.note) {
                    eprintln!("punctual-port: note: {note}");
                }
                Ok(priority)
            }
            Err(refused) => {
                eprintln!("punctual-port: {refused}");
                Err(Exit::PriorityRefused)
            }
        }
    }

    /// Re-reads the followed process's priority and follows a change (protocol 1: after
    /// each answer, as nanosleep does). Once that process is gone, or following fails, the
    /// thread keeps its last priority and stops looking.
    pub(crate) fn follow(&mut self) {
        let Some(above) = &mut self.above else {
            return;
        };
        if let Err(e) = above.refresh() {
            eprintln!("punctual-port: note: no longer following a priority: {e}");
            self.above = None;
        }
    }

    /// As [`Priority::follow`], at most every 10 ms.
    pub(crate) fn follow_now_and_then(&mut self) {
        if self.above.is_none() {
            return;
        }
        let now = Instant::now();
        if self
            .last_follow
            .is_none_or(|last| now.duration_since(last) >= FOLLOW_EVERY)
        {
            self.last_follow = Some(now);
            self.follow();
        }
    }
}

/// The lowest real-time priority; a note if refused.
fn lowest() -> Option<String> {
    rt::set_realtime_priority(*rt::priority_range().start())
        .err()
        .map(|e| format!("carrying on without real time: {e}"))
}
