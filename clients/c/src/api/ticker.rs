use std::sync::Mutex;

use punctual::{MissedTickPolicy, Sleeper, Tick, Ticker};

use super::sleep::{strategy_arg, wake_report};
use super::{deadline_arg, duration_arg, key, punctual_strategy, report_ns};
use crate::handle;
use crate::status::{guard, Failure, PUNCTUAL_E_OUT_OF_RANGE};
use crate::sys::{self, Report};

/// A missed-tick policy constant, `PUNCTUAL_MISSED_TICK_*`: what `punctual_ticker_tick`
/// does with ticks whose deadline passed before the call (there is no tolerance).
pub type punctual_missed_tick_policy = i32;
/// Every tick fires, in order: overdue ones at once, back to back, until caught up.
pub const PUNCTUAL_MISSED_TICK_BURST: punctual_missed_tick_policy = 0;
/// The default: overdue ticks are dropped (counted in `missed`) and the ticker waits for the
/// first grid point not yet past; the grid never moves.
pub const PUNCTUAL_MISSED_TICK_SKIP: punctual_missed_tick_policy = 1;
/// The overdue tick fires at once and the grid is re-anchored on it: later ticks are due
/// whole periods after it.
pub const PUNCTUAL_MISSED_TICK_DELAY: punctual_missed_tick_policy = 2;

fn policy_arg(policy: punctual_missed_tick_policy) -> Result<MissedTickPolicy, Failure> {
    match policy {
        PUNCTUAL_MISSED_TICK_BURST => Ok(MissedTickPolicy::Burst),
        PUNCTUAL_MISSED_TICK_SKIP => Ok(MissedTickPolicy::Skip),
        PUNCTUAL_MISSED_TICK_DELAY => Ok(MissedTickPolicy::Delay),
        other => Err(Failure::invalid(format!(
            "unknown missed-tick policy {other}: use PUNCTUAL_MISSED_TICK_BURST (0), _SKIP (1) or _DELAY (2)"
        ))),
    }
}

/// One tick, as `punctual_ticker_tick` reports it. Versioned like `punctual_wake`: set
/// `size` to `sizeof(punctual_tick)` (or use `PUNCTUAL_TICK_INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct punctual_tick {
    /// In: `sizeof(punctual_tick)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// Zero.
    pub reserved: u32,
    /// The tick's number on the grid: tick `k` of an un-shifted grid is due at
    /// `first_ns + k * period_ns`.
    pub index: u64,
    /// How many grid points passed without a tick just before this one.
    pub missed: u64,
    /// When the tick was due, in `punctual_now_ns()` nanoseconds: exact grid arithmetic.
    pub deadline_ns: i64,
    /// When the wait ended: at or after `deadline_ns`.
    pub woke_ns: i64,
    /// `woke_ns - deadline_ns`.
    pub lateness_ns: i64,
    /// How long the wait spun.
    pub spun_ns: i64,
}

impl Report for punctual_tick {
    const NAME: &'static str = "punctual_tick";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

fn tick_report(tick: &Tick) -> punctual_tick {
    let wake = wake_report(&tick.wake());
    punctual_tick {
        size: 0,
        reserved: 0,
        index: tick.index(),
        missed: tick.missed(),
        deadline_ns: wake.deadline_ns,
        woke_ns: wake.woke_ns,
        lateness_ns: wake.lateness_ns,
        spun_ns: wake.spun_ns,
    }
}

/// A periodic waker on a fixed grid: tick `k` is due at `first + k * period`, computed in
/// integer nanoseconds from `first` each time, so no error accumulates. Opaque.
///
/// Thread-safety: as `punctual_sleeper`: any thread, one call at a time
/// (`PUNCTUAL_E_BUSY` otherwise); freeing during another thread's tick is safe.
#[derive(Debug)]
pub struct punctual_ticker {
    _opaque: [u8; 0],
}

fn new_ticker(
    ticker: Result<Ticker, punctual::Error>,
    strategy: punctual_strategy,
    policy: punctual_missed_tick_policy,
    out: *mut *mut punctual_ticker,
) -> Result<(), Failure> {
    let sleeper = Sleeper::new(strategy_arg(strategy)?);
    let policy = policy_arg(policy)?;
    let ticker = ticker?.with_sleeper(sleeper).with_policy(policy);
    let key = handle::insert(Mutex::new(ticker));
    // A misaligned `out` is found only here: the handle must not outlive the failure.
    sys::write(out, key as *mut punctual_ticker, "out")
        .inspect_err(|_| drop(handle::remove::<Mutex<Ticker>>(key)))
}

/// Creates a ticker whose tick 0 is due one `period_ns` from now, waiting with `strategy`
/// (`PUNCTUAL_STRATEGY_*`) and handling overdue ticks by `policy`
/// (`PUNCTUAL_MISSED_TICK_*`), and stores it in `*out`.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, or `PUNCTUAL_E_INVALID_ARGUMENT` for a
/// zero or negative period, an unknown strategy or policy.
#[no_mangle]
pub extern "C" fn punctual_ticker_new(
    period_ns: i64,
    strategy: punctual_strategy,
    policy: punctual_missed_tick_policy,
    out: *mut *mut punctual_ticker,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        let period = duration_arg(period_ns, "period_ns")?;
        new_ticker(Ticker::new(period), strategy, policy, out)
    })
}

/// Creates a ticker whose tick 0 is due at `first_ns` (a `punctual_now_ns()` reading,
/// which may be in the past), as `punctual_ticker_new` otherwise.
///
/// Returns as `punctual_ticker_new`, with `PUNCTUAL_E_INVALID_ARGUMENT` for a negative
/// `first_ns`.
#[no_mangle]
pub extern "C" fn punctual_ticker_new_at(
    first_ns: i64,
    period_ns: i64,
    strategy: punctual_strategy,
    policy: punctual_missed_tick_policy,
    out: *mut *mut punctual_ticker,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        let first = deadline_arg(first_ns, "first_ns")?;
        let period = duration_arg(period_ns, "period_ns")?;
        new_ticker(Ticker::starting_at(first, period), strategy, policy, out)
    })
}

/// Frees a ticker. `NULL` is accepted and does nothing.
///
/// Returns `PUNCTUAL_OK` or `PUNCTUAL_E_INVALID_HANDLE` (freed already, or not a ticker).
#[no_mangle]
pub extern "C" fn punctual_ticker_free(ticker: *mut punctual_ticker) -> i32 {
    guard(|| {
        if ticker.is_null() {
            return Ok(());
        }
        handle::remove::<Mutex<Ticker>>(ticker as usize)
    })
}

/// Waits for the next tick by the ticker's policy and reports it in `*tick` (which may be
/// `NULL`). A grid point past the end of the clock is never reached: the call then sleeps
/// forever, as a sleep past it does.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE`,
/// `PUNCTUAL_E_BUSY` or `PUNCTUAL_E_INVALID_ARGUMENT` (`tick->size`), all before waiting.
#[no_mangle]
pub extern "C" fn punctual_ticker_tick(
    ticker: *mut punctual_ticker,
    tick: *mut punctual_tick,
) -> i32 {
    guard(|| {
        let key = key(ticker, "ticker")?;
        sys::check_report(tick, "tick", true)?;
        let report = handle::with(key, |t: &mut Ticker| tick_report(&t.tick()))?;
        sys::write_report(tick, report, "tick", true)
    })
}

/// Waits for the next tick as `punctual_ticker_tick` does, but only until `lead_ns` before
/// its deadline (at once for a tick due sooner), for a caller that reads
/// `punctual_now_ns()` itself the rest of the way, as `punctual_ticker_tick_inline` does:
/// `tick->deadline_ns` is the tick's deadline, and `woke_ns`, `lateness_ns` (negative when
/// the library's part ended before the deadline) and `spun_ns` report the library's part.
/// The grid moves on as if the tick fired at its deadline. A native ticker ignores the
/// lead: it spins for nothing, and ends at or after the deadline. This is the one wait
/// that may end before its deadline.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_INVALID_ARGUMENT` for a negative `lead_ns` or a
/// `tick->size` too small, `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE` or
/// `PUNCTUAL_E_BUSY`, all before waiting.
#[no_mangle]
pub extern "C" fn punctual_ticker_tick_ahead_ns(
    ticker: *mut punctual_ticker,
    lead_ns: i64,
    tick: *mut punctual_tick,
) -> i32 {
    guard(|| {
        let key = key(ticker, "ticker")?;
        let lead = duration_arg(lead_ns, "lead_ns")?;
        sys::check_report(tick, "tick", true)?;
        let report = handle::with(key, |t: &mut Ticker| {
            let ahead = t.tick_ahead(lead);
            let early = ahead.early();
            let deadline_ns = report_ns(ahead.deadline());
            let woke_ns = report_ns(early.woke());
            punctual_tick {
                size: 0,
                reserved: 0,
                index: ahead.index(),
                missed: ahead.missed(),
                deadline_ns,
                woke_ns,
                lateness_ns: woke_ns.saturating_sub(deadline_ns),
                spun_ns: crate::clock::duration_ns(early.spun()),
            }
        })?;
        sys::write_report(tick, report, "tick", true)
    })
}

/// Stores in `*deadline_ns` when tick `index` is due on the grid as it stands.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_OUT_OF_RANGE` when that is before the grid's anchor
/// (a `DELAY` ticker re-anchors its grid) or past `INT64_MAX` nanoseconds;
/// `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE` or `PUNCTUAL_E_BUSY`.
#[no_mangle]
pub extern "C" fn punctual_ticker_deadline_ns(
    ticker: *mut punctual_ticker,
    index: u64,
    deadline_ns: *mut i64,
) -> i32 {
    guard(|| {
        let key = key(ticker, "ticker")?;
        let deadline = handle::with(key, |t: &mut Ticker| t.deadline_of(index))?;
        let ns = deadline.and_then(crate::clock::to_ns).ok_or_else(|| {
            Failure::new(
                PUNCTUAL_E_OUT_OF_RANGE,
                format!(
                    "tick {index} is not on the grid as it stands: before its anchor, or past INT64_MAX ns"
                ),
            )
        })?;
        sys::write(deadline_ns, ns, "deadline_ns")
    })
}

/// Stores in `*index` the index of the tick the next `punctual_ticker_tick` waits for,
/// unless that tick is overdue by then.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_HANDLE` or
/// `PUNCTUAL_E_BUSY`.
#[no_mangle]
pub extern "C" fn punctual_ticker_next_index(ticker: *mut punctual_ticker, index: *mut u64) -> i32 {
    guard(|| {
        let key = key(ticker, "ticker")?;
        let next = handle::with(key, |t: &mut Ticker| t.next_index())?;
        sys::write(index, next, "index")
    })
}

/// Stores in `*missed` how many ticks were missed so far (see the policies).
///
/// Returns as `punctual_ticker_next_index`.
#[no_mangle]
pub extern "C" fn punctual_ticker_missed(ticker: *mut punctual_ticker, missed: *mut u64) -> i32 {
    guard(|| {
        let key = key(ticker, "ticker")?;
        let count = handle::with(key, |t: &mut Ticker| t.missed())?;
        sys::write(missed, count, "missed")
    })
}
