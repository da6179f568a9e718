//! Real-time scheduling for the port: the one module that decides and follows priorities.
//!
//! PLACEHOLDER until `punctual::rt` lands: no priority is changed, and `--priority` is
//! refused as unsupported rather than pretending.

use std::time::Duration;

use crate::sys::{self, Platform};

/// Cuts the calling thread's timer slack to 1 ns (Linux; inherited by the threads it starts),
/// as nanosleep does: by default Linux may fire a sleeper's timer up to 50 us late to batch
/// wake-ups. Says so on stderr when refused.
pub(crate) fn cut_timer_slack() {
    if let Err(e) = sys::Os::set_timer_slack(Duration::from_nanos(1)) {
        eprintln!("punctual-port: note: timer slack left as it was: {e}");
    }
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

/// The priority the program holds, and what it follows.
#[derive(Debug)]
pub(crate) struct Priority;

impl Priority {
    /// Applies `realtime` to the calling thread.
    pub(crate) fn apply(realtime: Realtime) -> Result<Priority, String> {
        match realtime {
            Realtime::Off => Ok(Priority),
            Realtime::Lowest | Realtime::Above(_) => {
                eprintln!("punctual-port: note: real-time scheduling is not built in yet");
                Ok(Priority)
            }
            Realtime::Fixed(_) => {
                Err("--priority: real-time scheduling is not built in yet".into())
            }
        }
    }

    /// Re-checks the followed process (protocol 1: after each answer).
    pub(crate) fn follow(&mut self) {}

    /// As [`Priority::follow`], at most every 10 ms (protocol 2 answers in bursts).
    pub(crate) fn follow_now_and_then(&mut self) {}
}
