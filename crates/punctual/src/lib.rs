//! Sleeps that never wake early, and wake as little late as the machine allows.
//!
//! `std::thread::sleep(1ms)` wakes tens of microseconds late on Linux (the default timer slack
//! alone is 50 us), and a Windows `Sleep(1)` can take a whole 15.6 ms tick. punctual
//! sleeps on the OS's best high-resolution timer and, by default, finishes the last stretch
//! with a short spin whose length it learns from how late this thread's sleeps really wake.
//! No wait ever returns before its deadline, as measured by [`std::time::Instant`].
//!
//! ```
//! use std::time::{Duration, Instant};
//!
//! let deadline = Instant::now() + Duration::from_millis(2);
//! let wake = punctual::sleep_until(deadline);
//! assert!(Instant::now() >= deadline);
//! println!("woke {:?} late", wake.lateness());
//! ```
//!
//! # Overview
//!
//! - [`sleep`] and [`sleep_until`]: the default, a per-thread hybrid [`Sleeper`].
//! - [`Sleeper`] with a [`Strategy`]: [`Native`](Strategy::Native) (no spinning),
//!   [`Hybrid`](Strategy::Hybrid) (native, then a learned spin tail, capped by a CPU budget;
//!   see [`margin`]) or [`Spin`](Strategy::Spin). Each wait reports a [`Wake`] with its
//!   lateness, so callers measure without a second clock read.
//! - [`Ticker`]: a fixed grid, `first + k * period` in integer nanoseconds, with a
//!   [`MissedTickPolicy`]; [`Grid`] is its arithmetic alone, for waiting some other way.
//! - [`Deadline`] and [`Poller`] / [`poll_until`]: poll a condition until a real deadline,
//!   never until a count of iterations.
//! - [`timer_info`]: which OS timer is in use, and whether it is degraded.
//! - [`quantum`]: [`quantum::probe`] times a plain OS sleep and says whether it is quantised,
//!   and the mid-band requests if so.
//! - [`rt`]: the machine settings that decide lateness as much as the timer does.
//! - [`future`]: the same promises for async code on any executor (see below).
//!
//! # Real-time
//!
//! A sleep is only as punctual as the thread is free to run when it wakes. [`rt`] sets
//! up the calling thread and the machine for that, and says clearly when it cannot:
//!
//! - [`rt::set_realtime_priority`]: `SCHED_FIFO` on Linux (raising the soft
//!   `RLIMIT_RTPRIO` to the hard limit first), the time-constraint policy on macOS,
//!   time-critical priority on Windows; [`rt::PriorityAbove`] keeps a thread one FIFO
//!   priority above another process and follows it.
//! - [`rt::timer_slack`] and [`rt::set_timer_slack`] (Linux): what the kernel may add to
//!   each timer; zero under a real-time policy.
//! - [`rt::DmaLatencyGuard`] (Linux): holds `/dev/cpu_dma_latency` to keep CPUs out of deep
//!   idle states.
//! - [`rt::lock_memory`] (`mlockall`, Linux) and [`rt::set_affinity`] (Linux, Windows).
//! - [`rt::spin_warning`]: a spin tail under `SCHED_FIFO` with real-time throttling on can
//!   be stalled for the rest of a throttling period; this says so.
//!
//! Refusals are typed: [`rt::RtError::PermissionDenied`] carries a message naming the fixes
//! (`CAP_SYS_NICE`, `ulimit -r`, `rtprio` in limits.conf, `LimitRTPRIO=`; `CAP_IPC_LOCK`
//! and `ulimit -l` for memory), so a program can print it as it is.
//!
//! # Async
//!
//! [`future::sleep`], [`future::sleep_until`] and [`future::interval`] are futures with
//! nanosecond deadlines that never complete early and report a [`Wake`] each. They need no
//! runtime: tokio (current-thread or multi-thread), smol / async-io and `futures::executor`
//! all drive them, because the waiting is done by a [`future::Driver`] thread that holds
//! every pending deadline in a timer wheel, sleeps natively until the earliest one, and
//! wakes the tasks due; an optional spin tail fires them a learned margin early and lets
//! each task spin to its deadline itself, under a CPU budget. Dropping a
//! pending sleep removes its timer; [`future::Sleep::reset`] moves one in place; the driver
//! reports its pending count, memory, CPU time and counters for benchmarks.
//!
//! ```
//! use std::time::Duration;
//!
//! futures::executor::block_on(async {
//!     let mut interval = punctual::future::interval(Duration::from_micros(250))?;
//!     for _ in 0..4 {
//!         let tick = interval.tick().await;
//!         assert!(tick.wake().woke() >= tick.deadline());
//!     }
//!     let wake = punctual::future::sleep(Duration::from_micros(100)).await;
//!     println!("{:?} late", wake.lateness());
//!     Ok::<(), punctual::Error>(())
//! })?;
//! # Ok::<(), punctual::Error>(())
//! ```
//!
//! # Platform notes
//!
//! - **Linux**: `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, resumed after `EINTR`,
//!   with the sleeping thread's timer slack set to 1 ns (`PR_SET_TIMERSLACK`) on its first
//!   native sleep.
//! - **macOS**: `mach_wait_until` on `mach_absolute_time` ticks.
//! - **Windows**: a waitable timer created with `CREATE_WAITABLE_TIMER_HIGH_RESOLUTION`
//!   (Windows 10 1803 and later), one per thread, closed when the thread ends. Elsewhere a
//!   normal waitable timer with `timeBeginPeriod(1)` held during the wait, which
//!   [`timer_info`] reports as degraded. Under Wine, whose waitable timers wake on whole
//!   milliseconds, a non-alertable `NtDelayExecution` (Wine's `select()` with a microsecond
//!   timeout), found at run time where ntdll exports `wine_get_version`.
//! - **Other platforms**: `std::thread::sleep`.
//!
//! The async driver thread waits with `futex(FUTEX_WAIT_BITSET)` and an absolute
//! `CLOCK_MONOTONIC` timeout on Linux (timer slack 1 ns), a `kqueue` `EVFILT_TIMER` with
//! `NOTE_MACHTIME | NOTE_ABSOLUTE` on macOS, a high-resolution waitable timer and an event
//! with `WaitForMultipleObjects` on Windows, and `Condvar::wait_timeout` elsewhere; see
//! [`future::Driver`].

#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

mod contention;
mod deadline;
mod error;
pub mod future;
mod grid;
mod hybrid;
mod info;
pub mod margin;
mod nanos;
mod poll;
pub mod quantum;
pub mod rt;
mod sleeper;
#[allow(unsafe_code)]
mod sys;
mod ticker;
mod wait;
mod wake;
mod way_back;

/// The crate's README (what crates.io shows), whose Rust example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::cell::RefCell;
use std::time::{Duration, Instant};

pub use deadline::Deadline;
pub use error::Error;
pub use grid::{Due, Grid};
pub use hybrid::HybridConfig;
pub use info::TimerInfo;
pub use nanos::saturating_nanos;
pub use poll::{poll_until, PollError, Poller};
pub use sleeper::{SleepStats, Sleeper, Strategy, UnknownStrategy};
pub use ticker::{MissedTickPolicy, Tick, TickAhead, Ticker};
pub use wake::Wake;
pub use way_back::WayBack;

thread_local! {
    static THREAD_SLEEPER: RefCell<Sleeper> = RefCell::new(Sleeper::hybrid());
}

/// Sleeps for `duration` with this thread's hybrid [`Sleeper`]; never returns early.
///
/// A duration so long that `Instant::now() + duration` overflows (such as
/// [`Duration::MAX`]) never returns, sleeping natively, as [`std::thread::sleep`] does.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
///
/// let start = Instant::now();
/// punctual::sleep(Duration::from_micros(300));
/// assert!(start.elapsed() >= Duration::from_micros(300));
/// ```
#[inline]
pub fn sleep(duration: Duration) -> Wake {
    with_thread_sleeper(|sleeper| sleeper.sleep(duration))
}

/// Sleeps until `deadline` with this thread's hybrid [`Sleeper`]; a deadline in the past
/// returns at once.
#[inline]
pub fn sleep_until(deadline: Instant) -> Wake {
    with_thread_sleeper(|sleeper| sleeper.sleep_until(deadline))
}

/// Runs `f` on the hybrid [`Sleeper`] behind [`sleep`] on this thread: to read its margin and
/// counters, or to sleep with it.
///
/// Called again from inside `f`, it hands the inner call a fresh sleeper rather than panic.
#[inline]
pub fn with_thread_sleeper<R>(f: impl FnOnce(&mut Sleeper) -> R) -> R {
    let mut f = Some(f);
    let shared = THREAD_SLEEPER.try_with(|cell| {
        cell.try_borrow_mut()
            .ok()
            .map(|mut sleeper| (f.take().expect("called once"))(&mut sleeper))
    });
    match (shared, f) {
        (Ok(Some(result)), _) => result,
        (_, Some(f)) => f(&mut Sleeper::hybrid()),
        (_, None) => unreachable!("f ran but returned no result"),
    }
}

/// Describes the native timer as the calling thread uses it; see [`TimerInfo`].
pub fn timer_info() -> TimerInfo {
    <sys::Os as sys::Platform>::timer_info()
}
