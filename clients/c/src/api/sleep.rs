use std::sync::Mutex;

use punctual::{Sleeper, Strategy, Wake};

use super::{deadline_arg, duration_arg, key, report_ns};
use crate::clock;
use crate::handle;
use crate::status::{guard, Failure};
use crate::sys::{self, Report};

/// A strategy constant, `PUNCTUAL_STRATEGY_*`.
pub type punctual_strategy = i32;
/// The OS's high-resolution timer alone: no spinning, the least CPU, lateness of the OS
/// timer (tens of microseconds on Linux). `precise_sleep` in C++.
pub const PUNCTUAL_STRATEGY_NATIVE: punctual_strategy = 0;
/// The default: the OS timer until a learned margin before the deadline, then a spin on the
/// monotonic clock, the spin at most a quarter of the wait (more, by less than the floor of
/// recent oversleeps, only when the OS timer wakes sooner than 99 in 100 recent waits did).
/// `deadline_sleep` in C++.
pub const PUNCTUAL_STRATEGY_HYBRID: punctual_strategy = 1;
/// Spins on the clock for the whole wait: the lowest lateness, a whole CPU meanwhile.
pub const PUNCTUAL_STRATEGY_SPIN: punctual_strategy = 2;

pub(crate) fn strategy_arg(strategy: punctual_strategy) -> Result<Strategy, Failure> {
    match strategy {
        PUNCTUAL_STRATEGY_NATIVE => Ok(Strategy::Native),
        PUNCTUAL_STRATEGY_HYBRID => Ok(Strategy::Hybrid),
        PUNCTUAL_STRATEGY_SPIN => Ok(Strategy::Spin),
        other => Err(Failure::invalid(format!(
            "unknown strategy {other}: use PUNCTUAL_STRATEGY_NATIVE (0), _HYBRID (1) or _SPIN (2)"
        ))),
    }
}

fn strategy_code(strategy: Strategy) -> punctual_strategy {
    match strategy {
        Strategy::Native => PUNCTUAL_STRATEGY_NATIVE,
        Strategy::Hybrid => PUNCTUAL_STRATEGY_HYBRID,
        Strategy::Spin => PUNCTUAL_STRATEGY_SPIN,
    }
}

/// What a wait reports. Set `size` to `sizeof(punctual_wake)` (or use `PUNCTUAL_WAKE_INIT`)
/// before passing one in; punctual sets it to the size it filled. Fields are only ever
/// added at the end, with `size` telling which a library filled.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct punctual_wake {
    /// In: `sizeof(punctual_wake)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// Zero.
    pub reserved: u32,
    /// The deadline waited for, in `punctual_now_ns()` nanoseconds: exactly the one given
    /// to a `*_sleep_until_ns` call.
    pub deadline_ns: i64,
    /// When the wait ended, on the same clock: at or after `deadline_ns`.
    pub woke_ns: i64,
    /// `woke_ns - deadline_ns`: how late the wait ended, never negative.
    pub lateness_ns: i64,
    /// How long of the wait was spent spinning (0 for the native strategy).
    pub spun_ns: i64,
}

impl Report for punctual_wake {
    const NAME: &'static str = "punctual_wake";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

pub(crate) fn wake_report(wake: &Wake) -> punctual_wake {
    punctual_wake {
        size: 0,
        reserved: 0,
        deadline_ns: report_ns(wake.deadline()),
        woke_ns: report_ns(wake.woke()),
        lateness_ns: clock::duration_ns(wake.lateness()),
        spun_ns: clock::duration_ns(wake.spun()),
    }
}

/// Sleeps for `duration_ns` nanoseconds with this thread's hybrid sleeper; never returns
/// early. `wake` may be `NULL`; otherwise it receives the report.
///
/// Zero returns at once. A signal arriving meanwhile does not shorten the sleep (the OS
/// wait is resumed). A duration beyond the clock's range sleeps forever, as `sleep` does.
///
/// Returns `PUNCTUAL_OK`, or before waiting: `PUNCTUAL_E_INVALID_ARGUMENT` for a negative
/// duration or a `wake->size` too small.
///
/// Thread-safe: each thread has its own sleeper, and learns its own margin.
#[no_mangle]
pub extern "C" fn punctual_sleep_ns(duration_ns: i64, wake: *mut punctual_wake) -> i32 {
    guard(|| {
        sys::check_report(wake, "wake", true)?;
        let duration = duration_arg(duration_ns, "duration_ns")?;
        let report = wake_report(&punctual::sleep(duration));
        sys::write_report(wake, report, "wake", true)
    })
}

/// Sleeps until `deadline_ns` (a reading of `punctual_now_ns()` plus a duration) with this
/// thread's hybrid sleeper; never returns before it. A deadline already passed returns at
/// once, with its lateness reported.
///
/// Returns `PUNCTUAL_OK`, or before waiting: `PUNCTUAL_E_INVALID_ARGUMENT` for a negative
/// deadline or a `wake->size` too small.
///
/// Thread-safe, as `punctual_sleep_ns`.
#[no_mangle]
pub extern "C" fn punctual_sleep_until_ns(deadline_ns: i64, wake: *mut punctual_wake) -> i32 {
    guard(|| {
        sys::check_report(wake, "wake", true)?;
        let deadline = deadline_arg(deadline_ns, "deadline_ns")?;
        let report = wake_report(&punctual::sleep_until(deadline));
        sys::write_report(wake, report, "wake", true)
    })
}

/// A sleeper with its own strategy and learned margin. Opaque.
///
/// Thread-safety: any thread may use a sleeper, one call at a time; a call while another
/// thread is inside a call on the same sleeper returns `PUNCTUAL_E_BUSY` at once. Freeing a
/// sleeper another thread is sleeping on is safe: that sleep ends normally, and every later
/// call with the handle returns `PUNCTUAL_E_INVALID_HANDLE`.
#[derive(Debug)]
pub struct punctual_sleeper {
    _opaque: [u8; 0],
}

/// Creates a sleeper with `strategy` (`PUNCTUAL_STRATEGY_*`) and stores it in `*out`.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER` when `out` is `NULL`, or
/// `PUNCTUAL_E_INVALID_ARGUMENT` for an unknown strategy (`*out` is then left alone).
#[no_mangle]
pub extern "C" fn punctual_sleeper_new(
    strategy: punctual_strategy,
    out: *mut *mut punctual_sleeper,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        let sleeper = Sleeper::new(strategy_arg(strategy)?);
        let key = handle::insert(Mutex::new(sleeper));
        // A misaligned `out` is found only here: the handle must not outlive the failure.
        sys::write(out, key as *mut punctual_sleeper, "out")
            .inspect_err(|_| drop(handle::remove::<Mutex<Sleeper>>(key)))
    })
}

/// Frees a sleeper. `NULL` is accepted and does nothing, as with `free`.
///
/// Returns `PUNCTUAL_OK`, or `PUNCTUAL_E_INVALID_HANDLE` for a sleeper freed already (a
/// double free) or anything that is not a live sleeper.
#[no_mangle]
pub extern "C" fn punctual_sleeper_free(sleeper: *mut punctual_sleeper) -> i32 {
    guard(|| {
        if sleeper.is_null() {
            return Ok(());
        }
        handle::remove::<Mutex<Sleeper>>(sleeper as usize)
    })
}

/// Sleeps for `duration_ns` nanoseconds with `sleeper`'s strategy; never returns early.
/// `wake` may be `NULL`.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE`,
/// `PUNCTUAL_E_BUSY`, or `PUNCTUAL_E_INVALID_ARGUMENT` for a negative duration or a
/// `wake->size` too small, all before waiting.
#[no_mangle]
pub extern "C" fn punctual_sleeper_sleep_ns(
    sleeper: *mut punctual_sleeper,
    duration_ns: i64,
    wake: *mut punctual_wake,
) -> i32 {
    guard(|| {
        let key = key(sleeper, "sleeper")?;
        sys::check_report(wake, "wake", true)?;
        let duration = duration_arg(duration_ns, "duration_ns")?;
        let report = handle::with(key, |s: &mut Sleeper| wake_report(&s.sleep(duration)))?;
        sys::write_report(wake, report, "wake", true)
    })
}

/// Sleeps until `deadline_ns` with `sleeper`'s strategy; never returns before it.
/// `wake` may be `NULL`.
///
/// Returns as `punctual_sleeper_sleep_ns`, with `PUNCTUAL_E_INVALID_ARGUMENT` for a
/// negative deadline.
#[no_mangle]
pub extern "C" fn punctual_sleeper_sleep_until_ns(
    sleeper: *mut punctual_sleeper,
    deadline_ns: i64,
    wake: *mut punctual_wake,
) -> i32 {
    guard(|| {
        let key = key(sleeper, "sleeper")?;
        sys::check_report(wake, "wake", true)?;
        let deadline = deadline_arg(deadline_ns, "deadline_ns")?;
        let report = handle::with(key, |s: &mut Sleeper| wake_report(&s.sleep_until(deadline)))?;
        sys::write_report(wake, report, "wake", true)
    })
}

/// Stores `sleeper`'s strategy (`PUNCTUAL_STRATEGY_*`) in `*strategy`.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE` or
/// `PUNCTUAL_E_BUSY`.
#[no_mangle]
pub extern "C" fn punctual_sleeper_strategy(
    sleeper: *mut punctual_sleeper,
    strategy: *mut punctual_strategy,
) -> i32 {
    guard(|| {
        let key = key(sleeper, "sleeper")?;
        let code = handle::with(key, |s: &mut Sleeper| strategy_code(s.strategy()))?;
        sys::write(strategy, code, "strategy")
    })
}

/// Stores in `*margin_ns` the margin the hybrid strategy used for `sleeper`'s latest wait:
/// how long before the deadline it stopped the OS timer and spun, learned from this
/// sleeper's own wakes (zero when it slept natively all the way), or the initial margin
/// before the first wait.
///
/// Returns as `punctual_sleeper_strategy`.
#[no_mangle]
pub extern "C" fn punctual_sleeper_margin_ns(
    sleeper: *mut punctual_sleeper,
    margin_ns: *mut i64,
) -> i32 {
    guard(|| {
        let key = key(sleeper, "sleeper")?;
        let margin = handle::with(key, |s: &mut Sleeper| clock::duration_ns(s.margin()))?;
        sys::write(margin_ns, margin, "margin_ns")
    })
}
