//! What Linux and macOS share: SIGPIPE ignored.

/// Ignores SIGPIPE, so that a write to a pipe nobody reads fails with `EPIPE` and the
/// program exits 0, as nanosleep's does. Rust's runtime already ignores it in binaries;
/// this keeps it so whatever started the program.
pub(crate) fn ignore_sigpipe() {
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE and installs no handler code
    // (signal(2)); nothing else in the program changes SIGPIPE's disposition.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}
