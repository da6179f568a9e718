//! Windows: no SIGPIPE to ignore (Windows has no signals for pipes), and
//! no output watcher, so the program notices at its next write, as nanosleep's does.
//! stdio and the doorbell are `punctual-sys`'s.

use super::Platform;

pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {}

    fn exit_when_output_closed() -> bool {
        false
    }
}
