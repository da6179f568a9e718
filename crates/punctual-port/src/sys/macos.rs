//! macOS: fds 0 and 1 as files. No output watcher: macOS does not document what `poll(2)`
//! reports on a pipe's write end once its reader has gone, so the program notices at its
//! next write (`EPIPE`), as nanosleep's does.

use std::io::{self, Read, Write};

use super::{unix, Platform};

pub(crate) use super::generic::Doorbell;

pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {
        unix::ignore_sigpipe();
    }

    fn input() -> io::Result<Box<dyn Read + Send>> {
        unix::input()
    }

    fn output() -> io::Result<Box<dyn Write + Send>> {
        unix::output()
    }

    fn exit_when_output_closed() -> bool {
        false
    }
}
