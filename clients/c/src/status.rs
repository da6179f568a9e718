//! Status codes, the per-thread last-error message, and the guard every entry point runs in.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use punctual::rt::RtError;

/// The call succeeded.
pub const PUNCTUAL_OK: i32 = 0;
/// A pointer the call needs (an out parameter, a handle, a callback) was `NULL`.
pub const PUNCTUAL_E_NULL_POINTER: i32 = -1;
/// The handle is not a live handle of this kind: already freed (a double free), never
/// returned by punctual, or a handle of another kind.
pub const PUNCTUAL_E_INVALID_HANDLE: i32 = -2;
/// A value the call cannot work with: a negative duration or deadline, a zero period, an
/// unknown strategy or policy constant, a report struct whose `size` is too small or that is
/// misaligned.
pub const PUNCTUAL_E_INVALID_ARGUMENT: i32 = -3;
/// A result that does not fit in 64-bit nanoseconds (a tick too far in the future).
pub const PUNCTUAL_E_OUT_OF_RANGE: i32 = -4;
/// Another thread is using this handle right now; handles take one call at a time.
pub const PUNCTUAL_E_BUSY: i32 = -5;
/// A poll loop's deadline passed with its condition unmet; the report has the time elapsed
/// and the number of polls.
pub const PUNCTUAL_E_TIMED_OUT: i32 = -6;
/// A callback ended the call with its own error code, which the report holds: a poll loop's
/// condition (`condition_error`) or a probe's sleep (`sleep_error`).
pub const PUNCTUAL_E_CONDITION: i32 = -7;
/// The OS refused for lack of privilege; the last-error message names the ways to grant it.
pub const PUNCTUAL_E_PERMISSION_DENIED: i32 = -8;
/// This platform has no such control.
pub const PUNCTUAL_E_UNSUPPORTED: i32 = -9;
/// A real-time priority outside `punctual_priority_range()`; nothing was changed.
pub const PUNCTUAL_E_INVALID_PRIORITY: i32 = -10;
/// A timer slack the OS cannot set (zero, or more than it holds).
pub const PUNCTUAL_E_INVALID_SLACK: i32 = -11;
/// CPUs this thread cannot be pinned to; the affinity is unchanged.
pub const PUNCTUAL_E_INVALID_AFFINITY: i32 = -12;
/// An OS call failed for another reason; the last-error message says which and why.
pub const PUNCTUAL_E_OS: i32 = -13;
/// A bug in punctual, caught before it reached the caller; the call had no effect beyond
/// what the message says. Please report it with the message.
pub const PUNCTUAL_E_INTERNAL: i32 = -14;

/// Why a call failed: its code and the message `punctual_last_error_message` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// A `PUNCTUAL_E_*` code.
    pub(crate) code: i32,
    /// One line saying what was wrong and, where there is one, the fix.
    pub(crate) message: String,
}

impl Failure {
    /// A failure with `code` and `message`.
    pub(crate) fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// [`PUNCTUAL_E_NULL_POINTER`] for the parameter `what`.
    pub(crate) fn null(what: &str) -> Failure {
        Failure::new(PUNCTUAL_E_NULL_POINTER, format!("{what} is NULL"))
    }

    /// [`PUNCTUAL_E_INVALID_ARGUMENT`] with `message`.
    pub(crate) fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(PUNCTUAL_E_INVALID_ARGUMENT, message)
    }
}

impl From<RtError> for Failure {
    fn from(error: RtError) -> Failure {
        let code = match &error {
            RtError::PermissionDenied { .. } => PUNCTUAL_E_PERMISSION_DENIED,
            RtError::InvalidPriority { .. } => PUNCTUAL_E_INVALID_PRIORITY,
            RtError::InvalidSlack { .. } => PUNCTUAL_E_INVALID_SLACK,
            RtError::InvalidAffinity { .. } => PUNCTUAL_E_INVALID_AFFINITY,
            RtError::Unsupported { .. } => PUNCTUAL_E_UNSUPPORTED,
            _ => PUNCTUAL_E_OS,
        };
        Failure::new(code, error.to_string())
    }
}

impl From<punctual::Error> for Failure {
    fn from(error: punctual::Error) -> Failure {
        Failure::invalid(error.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // A thread being torn down has no slot left; the code still says what failed.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = message);
}

/// The message of the last failed call on this thread, as a pointer C can keep until the
/// next failed call on the same thread.
pub(crate) fn last_error_message() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// Runs an entry point's body: its `Ok` is [`PUNCTUAL_OK`], its `Err` the failure's code
/// with the message kept for this thread, and a panic [`PUNCTUAL_E_INTERNAL`], never an
/// unwind into C.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => PUNCTUAL_OK,
        Ok(Err(failure)) => {
            set_last_error(&failure.message);
            failure.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            set_last_error(&format!(
                "internal error in punctual (please report it): {what}"
            ));
            PUNCTUAL_E_INTERNAL
        }
    }
}

/// Like [`guard`] for entry points that return a value rather than a code: `fallback` when
/// the body panicked.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// The fixed description of a status code.
pub(crate) fn describe(code: i32) -> &'static CStr {
    match code {
        PUNCTUAL_OK => c"success",
        PUNCTUAL_E_NULL_POINTER => c"a required pointer was NULL",
        PUNCTUAL_E_INVALID_HANDLE => {
            c"not a live handle of this kind (freed already, or never returned by punctual)"
        }
        PUNCTUAL_E_INVALID_ARGUMENT => c"invalid argument",
        PUNCTUAL_E_OUT_OF_RANGE => c"the result does not fit in 64-bit nanoseconds",
        PUNCTUAL_E_BUSY => c"the handle is in use by another thread",
        PUNCTUAL_E_TIMED_OUT => c"the deadline passed with the condition unmet",
        PUNCTUAL_E_CONDITION => c"a callback (a condition, a sleep) failed with its own error code",
        PUNCTUAL_E_PERMISSION_DENIED => {
            c"permission denied (punctual_last_error_message() names the fix)"
        }
        PUNCTUAL_E_UNSUPPORTED => c"not supported on this platform",
        PUNCTUAL_E_INVALID_PRIORITY => {
            c"real-time priority out of range (see punctual_priority_range())"
        }
        PUNCTUAL_E_INVALID_SLACK => c"timer slack must be at least 1 ns",
        PUNCTUAL_E_INVALID_AFFINITY => c"cannot run this thread on those CPUs",
        PUNCTUAL_E_OS => c"an OS call failed (punctual_last_error_message() says which)",
        PUNCTUAL_E_INTERNAL => c"internal error in punctual (please report it)",
        _ => c"unknown punctual status code",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_code_and_a_message() {
        let code = guard(|| panic!("boom"));
        assert_eq!(code, PUNCTUAL_E_INTERNAL);
        let message = LAST_ERROR.with(|slot| slot.borrow().to_string_lossy().into_owned());
        assert!(message.contains("boom"), "{message}");
    }

    #[test]
    fn every_code_has_its_own_description() {
        let unknown = describe(1);
        let mut seen = std::collections::HashSet::new();
        for code in PUNCTUAL_E_INTERNAL..=PUNCTUAL_OK {
            assert_ne!(describe(code), unknown, "code {code}");
            assert!(
                seen.insert(describe(code)),
                "code {code} shares a description"
            );
        }
    }
}
