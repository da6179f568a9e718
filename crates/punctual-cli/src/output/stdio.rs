//! Standard output and standard error as every command writes them, never with `print!`,
//! which panics when a write fails.
//!
//! A reader that went away (`punctual grid | head -c10`: EPIPE, or Windows' closed pipe)
//! ends the output quietly, as Unix tools end: later writes to standard output are dropped,
//! and the command goes on to write its files. Any other failure (`> /dev/full`: ENOSPC) is
//! an error for the caller to report. Standard error has nowhere to report its own failure,
//! so what cannot be written there is dropped.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// Set once a write to standard output found its reader gone.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `bytes` to standard output and flushes them, so that a failure shows now rather
/// than at exit, where it would go unreported.
pub fn print_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        written => written.context("writing to standard output"),
    }
}

/// Writes `text` to standard output; see [`print_bytes`].
pub fn print(text: &str) -> anyhow::Result<()> {
    print_bytes(text.as_bytes())
}

/// Writes `text` to standard error, if it can be written.
pub fn eprint(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Writes `error: ...` for `error` and its causes to standard error.
pub fn report(error: &anyhow::Error) {
    eprint(&format!("error: {error:#}\n"));
}
