//! Tests of what survives `fork(2)`: [`in_child`] runs a closure in a forked child of the
//! test process and gives back how the child ended, never waiting past a deadline.
//!
//! The child is a copy of a multi-threaded process (the test harness has threads) in which
//! only the forking thread runs, which is the case under test: Python's `multiprocessing`
//! with the `fork` start method, gunicorn's workers. It ends with `_exit(2)`, so nothing of
//! the parent's (the harness's output, its exit handlers) runs twice.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Once;
use std::time::{Duration, Instant};

/// How a forked child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this status: the closure's, or [`PANICKED`].
    Exited(i32),
    /// A signal ended it (its number).
    Signalled(i32),
    /// It was still running at the deadline, and was killed: it hung.
    Hung,
}

/// The status of a child whose closure panicked.
pub const PANICKED: i32 = 101;

/// Forks; runs `child` in the child and exits with what it returns (or [`PANICKED`]);
/// waits in the parent for the child's end, for at most `patience`, killing it then.
///
/// # Panics
///
/// When `fork(2)` or `waitpid(2)` fails.
pub fn in_child(patience: Duration, child: impl FnOnce() -> i32) -> Ended {
    install_child_hook();
    // SAFETY: fork(2) has no preconditions; in the child only the calling thread exists,
    // and the child runs the closure and ends with _exit without returning to the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
    if pid == 0 {
        // From here a panic ends the child in the hook (see `install_child_hook`). A store,
        // not a lock: the child may take no lock another thread held at the fork.
        IN_CHILD.store(true, Relaxed);
        let status = catch_unwind(AssertUnwindSafe(child)).unwrap_or(PANICKED);
        // SAFETY: _exit(2) ends the process at once and never returns.
        unsafe { libc::_exit(status) }
    }
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: `pid` is our child and `status` a valid place for its status; WNOHANG
        // returns 0 at once while it runs.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(rc >= 0, "waitpid: {}", std::io::Error::last_os_error());
        if rc == pid {
            return if libc::WIFEXITED(status) {
                Ended::Exited(libc::WEXITSTATUS(status))
            } else {
                Ended::Signalled(libc::WTERMSIG(status))
            };
        }
        if start.elapsed() > patience {
            // SAFETY: kill(2) and waitpid(2) on our own child, which has not been reaped.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Ended::Hung;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Set in a forked child of [`in_child`] only: the child's copy of the flag.
static IN_CHILD: AtomicBool = AtomicBool::new(false);

/// Wraps the process's panic hook, once and in the parent, so that a panic in a forked
/// child ends the child at once with [`PANICKED`], before any unwinding: the unwinder takes
/// locks (the loader's, its frame cache's) that another of the parent's threads may have
/// held at the fork, and the default hook prints through the harness's captured output.
/// The hook is not set in the child: `set_hook` takes the hook's lock for writing, and
/// another test thread panicking at the moment of the fork holds it for reading, for ever
/// in the child. Outside a child the wrapper calls the hook it replaced.
fn install_child_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CHILD.load(Relaxed) {
                // SAFETY: _exit(2) ends the process at once and never returns.
                unsafe { libc::_exit(PANICKED) }
            }
            previous(info)
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_childs_status_and_hang_come_back() {
        let patience = Duration::from_secs(60);
        assert_eq!(in_child(patience, || 7), Ended::Exited(7));
        // The hook is the parent's, so a child's panic takes no lock a panicking harness
        // thread could hold at the fork (another test here panics on purpose).
        assert_eq!(
            in_child(patience, || panic!("in the child")),
            Ended::Exited(PANICKED)
        );
        let hang = || loop {
            std::thread::sleep(Duration::from_secs(1));
        };
        assert_eq!(in_child(Duration::from_millis(200), hang), Ended::Hung);
    }
}
