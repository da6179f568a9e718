use std::ffi::c_void;
use std::time::Instant;

use punctual::{Deadline, PollError, Poller};

use super::{deadline_arg, duration_arg};
use crate::clock;
use crate::status::{guard, Failure, PUNCTUAL_E_CONDITION, PUNCTUAL_E_TIMED_OUT};
use crate::sys::{self, Report};

/// A deadline that never passes: `INT64_MAX`.
pub const PUNCTUAL_DEADLINE_NEVER: i64 = i64::MAX;

/// A condition's answer: not met yet, poll again after a step.
pub const PUNCTUAL_POLL_PENDING: i32 = 0;
/// A condition's answer: met, the poll loop returns `PUNCTUAL_OK`.
pub const PUNCTUAL_POLL_READY: i32 = 1;

/// A poll condition: returns `PUNCTUAL_POLL_READY`, `PUNCTUAL_POLL_PENDING`, or any other
/// value as its own error code, which ends the loop with `PUNCTUAL_E_CONDITION` and the value
/// in the report's `condition_error`. It must return normally: no C++ exception and no
/// `longjmp` may leave it (punctual's frames are below it).
pub type punctual_condition_fn = Option<unsafe extern "C" fn(user_data: *mut c_void) -> i32>;

/// A hook run before every sleep of a poll loop (a UI message pump, a watchdog kick). The
/// same rule as for conditions: it must return normally.
pub type punctual_hook_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// How a poll loop ended. Versioned like `punctual_wake`: set `size` to
/// `sizeof(punctual_poll_report)` (or use `PUNCTUAL_POLL_REPORT_INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct punctual_poll_report {
    /// In: `sizeof(punctual_poll_report)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// The condition's own error code with `PUNCTUAL_E_CONDITION`; 0 otherwise.
    pub condition_error: i32,
    /// How many times the condition was called.
    pub polls: u64,
    /// Time from the start of the loop: to the check that found the deadline passed
    /// (`PUNCTUAL_E_TIMED_OUT`), or to the return.
    pub elapsed_ns: i64,
}

impl Report for punctual_poll_report {
    const NAME: &'static str = "punctual_poll_report";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

fn deadline_of(deadline_ns: i64) -> Result<Deadline, Failure> {
    if deadline_ns == PUNCTUAL_DEADLINE_NEVER {
        Ok(Deadline::never())
    } else {
        deadline_arg(deadline_ns, "deadline_ns").map(Deadline::at)
    }
}

/// Stores in `*deadline_ns` the deadline `duration_ns` from now, or
/// `PUNCTUAL_DEADLINE_NEVER` when that is past the end of the clock.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, or `PUNCTUAL_E_INVALID_ARGUMENT` for a
/// negative duration. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_deadline_after_ns(duration_ns: i64, deadline_ns: *mut i64) -> i32 {
    guard(|| {
        if deadline_ns.is_null() {
            return Err(Failure::null("deadline_ns"));
        }
        let deadline = Deadline::after(duration_arg(duration_ns, "duration_ns")?);
        let ns = deadline
            .instant()
            .and_then(clock::to_ns)
            .unwrap_or(PUNCTUAL_DEADLINE_NEVER);
        sys::write(deadline_ns, ns, "deadline_ns")
    })
}

/// Stores in `*remaining_ns` the time left until `deadline_ns`: 0 once passed, `INT64_MAX`
/// for `PUNCTUAL_DEADLINE_NEVER`.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, or `PUNCTUAL_E_INVALID_ARGUMENT` for a
/// negative deadline. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_deadline_remaining_ns(deadline_ns: i64, remaining_ns: *mut i64) -> i32 {
    guard(|| {
        if remaining_ns.is_null() {
            return Err(Failure::null("remaining_ns"));
        }
        let remaining = deadline_of(deadline_ns)?.remaining();
        sys::write(remaining_ns, clock::duration_ns(remaining), "remaining_ns")
    })
}

/// Calls `condition(user_data)` until it returns `PUNCTUAL_POLL_READY`, returns an error of
/// its own, or `deadline_ns` passes (`PUNCTUAL_DEADLINE_NEVER`: never), sleeping `step_ns`
/// between calls (0: call again at once) with a native sleeper. Each sleep is shortened to
/// end at the deadline, and the condition is called once more there before the loop gives
/// up, so a timeout comes within the deadline plus one step. `before_sleep(user_data)`, when
/// not `NULL`, runs before every sleep. `report` may be `NULL`.
///
/// Returns `PUNCTUAL_OK` when the condition was met; `PUNCTUAL_E_TIMED_OUT` with the
/// elapsed time and the poll count in `report`; `PUNCTUAL_E_CONDITION` with the condition's
/// code in `report->condition_error`; before polling, `PUNCTUAL_E_NULL_POINTER` for a
/// `NULL` condition and `PUNCTUAL_E_INVALID_ARGUMENT` for a negative deadline or step or a
/// `report->size` too small.
///
/// Thread-safe: the loop runs on the calling thread and holds no handle.
#[no_mangle]
pub extern "C" fn punctual_poll_until(
    deadline_ns: i64,
    step_ns: i64,
    condition: punctual_condition_fn,
    before_sleep: punctual_hook_fn,
    user_data: *mut c_void,
    report: *mut punctual_poll_report,
) -> i32 {
    guard(|| {
        let condition = condition.ok_or_else(|| Failure::null("condition"))?;
        sys::check_report(report, "report", true)?;
        let deadline = deadline_of(deadline_ns)?;
        let step = duration_arg(step_ns, "step_ns")?;
        let start = Instant::now();
        let mut polls = 0u64;
        let result = Poller::new(deadline)
            .step(step)
            .before_sleep(|| {
                if let Some(hook) = before_sleep {
                    sys::call_hook(hook, user_data);
                }
            })
            .until(|| {
                polls += 1;
                match sys::call_condition(condition, user_data) {
                    PUNCTUAL_POLL_READY => Ok(Some(())),
                    PUNCTUAL_POLL_PENDING => Ok(None),
                    own => Err(own),
                }
            });
        let elapsed_ns = clock::duration_ns(start.elapsed());
        let (outcome, filled) = match result {
            Ok(()) => (Ok(()), (0, polls, elapsed_ns)),
            Err(PollError::TimedOut { elapsed, polls }) => (
                Err(Failure::new(
                    PUNCTUAL_E_TIMED_OUT,
                    format!(
                        "the deadline passed with the condition unmet: {} ns and {polls} polls",
                        clock::duration_ns(elapsed)
                    ),
                )),
                (0, polls, clock::duration_ns(elapsed)),
            ),
            Err(PollError::Failed(code)) => (
                Err(Failure::new(
                    PUNCTUAL_E_CONDITION,
                    format!("the condition failed with its own code {code} after {polls} polls"),
                )),
                (code, polls, elapsed_ns),
            ),
        };
        let (condition_error, polls, elapsed_ns) = filled;
        let filled = punctual_poll_report {
            size: 0,
            condition_error,
            polls,
            elapsed_ns,
        };
        sys::write_report(report, filled, "report", true)?;
        outcome
    })
}
