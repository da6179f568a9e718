//! Linux: SIGPIPE ignored, and a thread that watches fd 1 with `poll(2)`.
//!
//! `poll` asked for no events still reports `POLLERR` on the write end of a pipe once its
//! read end is closed (pipe(7)), and `POLLHUP` on a hung-up socket or terminal, so the
//! watcher sleeps until the owner has gone and no longer while it is there.

use std::io;
use std::thread;

use super::{unix, Platform};

pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {
        unix::ignore_sigpipe();
    }

    fn exit_when_output_closed() -> bool {
        thread::Builder::new()
            .name("output-watch".into())
            .spawn(watch_output)
            .is_ok()
    }
}

fn watch_output() {
    loop {
        let mut fd = libc::pollfd {
            fd: libc::STDOUT_FILENO,
            events: 0,
            revents: 0,
        };
        // SAFETY: `fd` is one valid, writable pollfd and the count is 1 (poll(2)); a
        // negative timeout blocks until an event.
        let rc = unsafe { libc::poll(&mut fd, 1, -1) };
        if rc < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if fd.revents & libc::POLLNVAL != 0 {
            return;
        }
        if fd.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            std::process::exit(0);
        }
    }
}
