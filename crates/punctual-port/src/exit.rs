//! The program's exit statuses, and the one place that reports why it stops.
//!
//! 0, 2 and 3 are nanosleep's; 64 and 71 are `sysexits.h`'s `EX_USAGE` and `EX_OSERR`, so
//! that a bad command line is never taken for a malformed frame.

use std::fmt::Display;

/// Why the program stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exit {
    /// The input ended, or the answers could no longer be written: the owner has gone. 0.
    Done,
    /// A frame protocol 1 does not accept, or one cut short by the end of input. 2.
    Malformed,
    /// `--priority N` was refused. 3.
    PriorityRefused,
    /// The command line is wrong. 64.
    Usage,
    /// The program could not set itself up (its pipes, its timer thread). 71.
    Setup,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Malformed => 2,
            Exit::PriorityRefused => 3,
            Exit::Usage => 64,
            Exit::Setup => 71,
        }
    }

    /// [`Exit::Malformed`], after saying why on stderr.
    pub(crate) fn malformed(why: &dyn Display) -> Exit {
        eprintln!("punctual-port: malformed input: {why}");
        Exit::Malformed
    }

    /// [`Exit::Setup`], after saying what failed on stderr.
    pub(crate) fn setup(what: &str, error: &dyn Display) -> Exit {
        eprintln!("punctual-port: could not set up {what}: {error}");
        Exit::Setup
    }
}
