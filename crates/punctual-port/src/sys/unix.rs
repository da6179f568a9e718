//! What Linux and macOS share: file descriptors 0 and 1 as plain files, SIGPIPE ignored.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;

/// Ignores SIGPIPE, so that a write to a pipe nobody reads fails with `EPIPE` and the
/// program exits 0, as nanosleep's does. Rust's runtime already ignores it in binaries;
/// this keeps it so whatever started the program.
pub(crate) fn ignore_sigpipe() {
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE and installs no handler code
    // (signal(2)); nothing else in the program changes SIGPIPE's disposition.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// A duplicate of standard input: reads go straight to the pipe, bypassing std's
/// `Stdin` buffer and lock.
pub(crate) fn input() -> io::Result<Box<dyn Read + Send>> {
    let fd = io::stdin().as_fd().try_clone_to_owned()?;
    Ok(Box::new(File::from(fd)))
}

/// A duplicate of standard output: std's `Stdout` is line-buffered, and answers are binary.
pub(crate) fn output() -> io::Result<Box<dyn Write + Send>> {
    let fd = io::stdout().as_fd().try_clone_to_owned()?;
    Ok(Box::new(File::from(fd)))
}
