//! What the test suites of punctual's crates share: [`privilege`], what a test that needs
//! privileges does without them; [`fork`], a closure run in a forked child (Unix); [`xorshift`], the tests' one generator; [`WakeCount`], a
//! waker that counts its wakes; and [`started`], below.
//!
//! Starting a process so that a test fails for its own reasons and not for Wine's. Wine's `CreateProcess` now and then fails with `ERROR_INTERNAL_ERROR` (1359):
//! wineserver reported that the new process ended before it finished starting, without an
//! exit code of its own (Wine 8, `NtCreateUserProcess` in ntdll). CI saw it once, in a test
//! that had started the same binary a dozen times before. [`started`] starts the process
//! again after that one error, a few times; every other error, and that one once the
//! attempts are spent, comes back as it came. Linux has no errno of that number, so there
//! the retry never fires.

#[cfg(unix)]
pub mod fork;
pub mod privilege;
mod readme;
mod rng;
mod wake;

pub use rng::xorshift;
pub use wake::WakeCount;

use std::io;
use std::thread;
use std::time::Duration;

/// `ERROR_INTERNAL_ERROR`, which Wine's `CreateProcess` returns when the child it started
/// died before it was running.
const CHILD_DIED_STARTING: i32 = 1359;

/// How many times a process is started before its error is returned.
const ATTEMPTS: u32 = 5;

/// Runs `start` (a `Command`'s `output`, `spawn` or `status`, std's or assert_cmd's) and
/// runs it again after Wine's transient failure to start the process.
///
/// ```
/// let output = punctual_test_support::started(|| std::process::Command::new("true").output());
/// ```
pub fn started<T>(mut start: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut attempt = 1;
    loop {
        match start() {
            Err(error)
                if error.raw_os_error() == Some(CHILD_DIED_STARTING) && attempt < ATTEMPTS =>
            {
                eprintln!("starting a process failed ({error}); Wine does this now and then, trying again");
                thread::sleep(Duration::from_millis(100) * attempt);
                attempt += 1;
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A start that fails `failures` times with OS error `code`, then returns its call count.
    fn failing_then(
        failures: u32,
        code: i32,
        calls: &Cell<u32>,
    ) -> impl FnMut() -> io::Result<u32> + '_ {
        move || {
            calls.set(calls.get() + 1);
            if calls.get() <= failures {
                Err(io::Error::from_raw_os_error(code))
            } else {
                Ok(calls.get())
            }
        }
    }

    #[test]
    fn wines_failure_is_retried_until_the_process_starts() {
        let calls = Cell::new(0);
        let result = started(failing_then(3, CHILD_DIED_STARTING, &calls));
        assert_eq!(result.unwrap(), 4);
    }

    #[test]
    fn wines_failure_comes_back_once_the_attempts_are_spent() {
        let calls = Cell::new(0);
        let error = started(failing_then(u32::MAX, CHILD_DIED_STARTING, &calls)).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(CHILD_DIED_STARTING));
        assert_eq!(calls.get(), ATTEMPTS);
    }

    #[test]
    fn any_other_error_comes_back_at_once() {
        let calls = Cell::new(0);
        let error = started(failing_then(u32::MAX, 2, &calls)).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(2));
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn a_missing_program_is_an_error_at_once() {
        let missing = started(|| {
            std::process::Command::new("punctual-test-support-no-such-program").output()
        });
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
    }
}
