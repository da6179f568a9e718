//! The binding's one piece of unsafe code: the GIL released around a wait, and taken back
//! so that a thread taking it while the interpreter finalizes hangs instead of crashing.
//!
//! CPython before 3.14 ends such a thread with `pthread_exit` from inside
//! `PyEval_RestoreThread`; its forced unwinding, reaching the Rust frames of a
//! `#[pyfunction]`, aborts the whole process ("FATAL: exception not rethrown"): a daemon
//! thread in `punctual.sleep` at exit would crash it. pyo3 guards its own `PyGILState_Ensure`
//! this way (pyo3-ffi's `HangThread`); its `allow_threads` has no such guard. Here a guard
//! that never finishes dropping sits on the stack while the GIL is taken back: the forced
//! unwind runs its destructor, and the thread hangs without the GIL, as Python 3.14 hangs
//! such threads itself. (On Windows the thread ends through `_endthreadex`, which runs no
//! destructors: nothing to guard.)

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use pyo3::ffi;
use pyo3::prelude::*;

mod raw {
    // `C-unwind`: the forced unwind of `pthread_exit` may leave this call.
    extern "C-unwind" {
        pub(super) fn PyEval_RestoreThread(tstate: *mut pyo3::ffi::PyThreadState);
    }
}

/// Hangs the thread when dropped, which only an unwind out of `PyEval_RestoreThread` does.
struct HangOnExit;

impl Drop for HangOnExit {
    fn drop(&mut self) {
        loop {
            std::thread::park();
        }
    }
}

/// Runs `f` with the GIL released. `f` must not touch Python (pyo3 still counts the GIL
/// as held on this thread, so `Python::with_gil` inside it would not take it).
pub(crate) fn without_gil<T, F>(_py: Python<'_>, f: F) -> T
where
    F: FnOnce() -> T + Send,
{
    // SAFETY: `_py` proves this thread holds the GIL, so it has a current thread state,
    // which `PyEval_SaveThread` saves and returns after releasing the GIL.
    let tstate = unsafe { ffi::PyEval_SaveThread() };
    // A panic in `f` must not unwind past the GIL still released.
    let result = catch_unwind(AssertUnwindSafe(f));
    let guard = HangOnExit;
    // SAFETY: `tstate` is this thread's state, saved above and not restored since; this
    // takes the GIL back, as `Py_END_ALLOW_THREADS` does. It returns normally unless the
    // interpreter is finalizing, and then unwinds into `guard`'s destructor, which hangs.
    unsafe { raw::PyEval_RestoreThread(tstate) };
    std::mem::forget(guard);
    result.unwrap_or_else(|panic| resume_unwind(panic))
}
