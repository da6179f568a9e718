//! Interpreter exit, for threads still waiting in the library then.
//!
//! At exit CPython 3.11 ends every thread that takes the GIL back after finalization has
//! begun with `pthread_exit`, whose forced unwinding through Rust frames aborts the process
//! ("FATAL: exception not rethrown"): a daemon thread in `punctual.sleep` would crash the
//! exit. So an `atexit` hook (run before finalization) marks the exit, and from then on a
//! thread about to take the GIL back parks for good instead, without it, as Python 3.14
//! itself does with such threads. Daemon threads end with the process anyway.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;

static EXITING: AtomicBool = AtomicBool::new(false);

/// Called by `atexit`.
#[pyfunction]
pub(crate) fn _exiting() {
    EXITING.store(true, Ordering::Release);
}

/// Whether the interpreter has begun to exit.
pub(crate) fn exiting() -> bool {
    EXITING.load(Ordering::Acquire)
}

/// Called without the GIL, just before taking it back: never returns once the interpreter
/// is exiting.
pub(crate) fn park_if_exiting() {
    while exiting() {
        std::thread::park();
    }
}
