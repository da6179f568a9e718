//! macOS: SIGPIPE ignored. No output watcher: macOS does not document what `poll(2)`
//! reports on a pipe's write end once its reader has gone, so the program notices at its
//! next write (`EPIPE`), as nanosleep's does.

use super::{unix, Platform};

pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {
        unix::ignore_sigpipe();
    }

    fn exit_when_output_closed() -> bool {
        false
    }
}
