//! The platform layer of punctual's crates: each platform primitive that more than one of
//! them needs, written once. The library (`punctual`), the CLI (`punctual-cli`) and the BEAM
//! port (`punctual-port`) call these; what only one of them needs stays in that crate's own
//! `sys` module (the library's real-time controls, the CLI's environment facts, the port's
//! output watcher).
//!
//! Internal: the API follows what those crates need and makes no promise beyond them. Use
//! `punctual`.
//!
//! Every backend provides a unit struct `Os` implementing the private `Platform` trait and
//! a `Waiter` implementing `Interruptible`, so the compiler checks each against the same
//! interface; the public items here wrap them. Exactly one is compiled in:
//!
//! | backend      | used on        | native wait                                       | interruptible wait                                                 |
//! |--------------|----------------|---------------------------------------------------|--------------------------------------------------------------------|
//! | `linux/`     | Linux, Android | `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` | `futex(FUTEX_WAIT_BITSET)`, absolute `CLOCK_MONOTONIC` timeout      |
//! | `macos/`     | macOS, iOS     | `mach_wait_until`                                 | `kqueue`: `EVFILT_TIMER` (`NOTE_MACHTIME \| NOTE_ABSOLUTE`) + `EVFILT_USER` |
//! | `windows/`   | Windows        | high-resolution waitable timer, cached per thread | high-resolution waitable timer + event, `WaitForMultipleObjects`   |
//! | `generic.rs` | anything else  | `std::thread::sleep`                              | `Condvar::wait_timeout`                                            |
//!
//! The backends live in `sys/`; `sys/unix.rs` holds what Linux and macOS share: the CPU clocks and the stdio descriptors.
//! This crate is all platform code, so `unsafe` is allowed in it, each block with its
//! `// SAFETY:` argument; the crates that use it deny `unsafe` outside their own `sys`.

#![deny(missing_docs, missing_debug_implementations)]

use std::fmt;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// What every backend provides.
trait Platform {
    const INITIAL_MARGIN: Duration;
    fn wait_until(deadline: Instant, now: Instant);
    fn native_timer() -> NativeTimer;
    fn thread_cpu_time() -> Option<Duration>;
    fn process_cpu_time() -> Option<Duration>;
    fn coarse_clock() -> Option<CoarseClock>;
    fn raw_stdin() -> io::Result<Box<dyn Read + Send>>;
    fn raw_stdout() -> io::Result<Box<dyn Write + Send>>;
    /// See [`fork_generation`]; always 0 where processes do not fork.
    fn fork_generation() -> u64 {
        0
    }
    /// See [`timer_slack_chosen`]; a no-op where threads have no timer slack.
    fn timer_slack_chosen() {}
    /// See [`timer_slack_reset`]; a no-op where threads have no timer slack.
    fn timer_slack_reset() {}
    /// See [`PLAIN_SLEEP`].
    const PLAIN_SLEEP: &'static str = "std::thread::sleep";
    /// See [`plain_sleep`]; `std::thread::sleep` where it is the OS's plain sleep.
    fn plain_sleep(ms: u32) {
        std::thread::sleep(Duration::from_millis(ms.into()));
    }
}

/// What every backend's interruptible wait provides; see [`Waiter`].
trait Interruptible: Sized + Send + Sync {
    fn new() -> io::Result<Self>;
    fn wait(&self, deadline: Option<Instant>) -> Woken;
    fn notify(&self);
    fn timer(&self) -> NativeTimer;
}

/// A wait's OS mechanism and how well it works on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeTimer {
    /// The OS call, e.g. `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`.
    pub mechanism: &'static str,
    /// Whether it can wake at a finer grain than a scheduler tick.
    pub high_resolution: bool,
    /// The resolution the OS reports for its monotonic clock, where it reports one.
    pub resolution: Option<Duration>,
    /// Why it is not the best this OS family offers, when it is not.
    pub degraded: Option<String>,
}

/// How a [`Waiter::wait`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woken {
    /// The timeout expired: the wait ran its whole length, so its oversleep is a fair sample.
    TimedOut,
    /// [`Waiter::notify`] was called, or the OS ended the wait for its own reasons.
    Other,
}

/// An interruptible wait: one thread waits until a deadline, and any other thread can cut
/// the wait short. The async driver's thread and the port's timer thread block on one.
pub struct Waiter {
    inner: sys::Waiter,
}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field("mechanism", &self.inner.timer().mechanism)
            .finish_non_exhaustive()
    }
}

impl Waiter {
    /// Makes the OS objects of a waiter.
    ///
    /// # Errors
    ///
    /// The OS error when it refuses them (out of handles or descriptors).
    pub fn new() -> io::Result<Waiter> {
        sys::Waiter::new().map(|inner| Waiter { inner })
    }

    /// Blocks the calling thread until about `deadline` (`None`: until notified) or until
    /// [`Waiter::notify`]. A notification made before the call, since the last wait
    /// returned, ends the wait at once: none is lost. Like [`wait_until`] it may return a
    /// little before `deadline`; the caller re-checks the clock. Only one thread waits on a
    /// waiter at a time. Never panics.
    pub fn wait(&self, deadline: Option<Instant>) -> Woken {
        self.inner.wait(deadline)
    }

    /// Ends the current or the next [`Waiter::wait`]. Callable from any thread.
    pub fn notify(&self) {
        self.inner.notify();
    }

    /// Describes the wait as the calling (waiting) thread sees it, having set the thread up
    /// for it (timer slack on Linux).
    pub fn timer(&self) -> NativeTimer {
        self.inner.timer()
    }
}

/// A clock that only moves on the scheduler tick, the ruler a naive program times with.
#[derive(Debug, Clone, Copy)]
pub struct CoarseClock {
    /// The OS's name for it.
    pub name: &'static str,
    /// Its grain, the scheduler tick, where the OS reports it.
    pub resolution: Option<Duration>,
    /// Reads it: the time since an arbitrary start.
    pub now: fn() -> Duration,
}

/// How early a spin should start before it has measured anything on this thread: a
/// little above the typical oversleep of [`wait_until`].
pub const INITIAL_MARGIN: Duration = <sys::Os as Platform>::INITIAL_MARGIN;

/// Blocks the calling thread, without spinning, until about `deadline`.
///
/// `now` was read just before the call and is before `deadline`. One call is one OS wait
/// (retried on `EINTR` where that applies); it may return before `deadline` when the OS
/// clock and [`Instant`] disagree by a few nanoseconds, so callers re-check the clock and
/// call again. Never panics.
pub fn wait_until(deadline: Instant, now: Instant) {
    <sys::Os as Platform>::wait_until(deadline, now);
}

/// Describes [`wait_until`] as the calling thread sees it, having set the thread up for it.
pub fn native_timer() -> NativeTimer {
    <sys::Os as Platform>::native_timer()
}

/// The CPU time the calling thread has used, or `None` where the OS does not say.
pub fn thread_cpu_time() -> Option<Duration> {
    <sys::Os as Platform>::thread_cpu_time()
}

/// The CPU time every thread of this process has used, or `None` where the OS does not say.
pub fn process_cpu_time() -> Option<Duration> {
    <sys::Os as Platform>::process_cpu_time()
}

/// The tick-granular clock of this OS, if it has one.
pub fn coarse_clock() -> Option<CoarseClock> {
    <sys::Os as Platform>::coarse_clock()
}

/// Standard input as a plain byte stream: a duplicate of its descriptor (handle on
/// Windows) as a file, so reads go straight to the pipe, bypassing std's `Stdin` buffer and
/// lock. std's `Stdin` where this crate has no backend.
///
/// # Errors
///
/// The OS error when the descriptor or handle cannot be duplicated.
pub fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
    <sys::Os as Platform>::raw_stdin()
}

/// Standard output as a plain byte stream: a duplicate of its descriptor (handle) as a
/// file, with no line buffering and no newline translation (binary mode), so one `write`
/// is one OS write. std's `Stdout` where this crate has no backend.
///
/// # Errors
///
/// The OS error when the descriptor or handle cannot be duplicated.
pub fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
    <sys::Os as Platform>::raw_stdout()
}

/// What [`plain_sleep`] calls, as a report names it: `Win32 Sleep()` on Windows,
/// `std::thread::sleep` elsewhere.
pub const PLAIN_SLEEP: &str = <sys::Os as Platform>::PLAIN_SLEEP;

/// Sleeps `ms` milliseconds the plain way, as a program that knows no better does: what
/// the probes time (the CLI's `punctual probe`, the Lua module's `probe()`), to show what
/// such a program pays. Never a precise wait; that is [`wait_until`].
///
/// On Windows it is Win32 `Sleep(ms)`, the call behind Cheat Engine's `sleep`, FPC's
/// `Sleep` and C#'s `Thread.Sleep`: quantised to the system tick (15.625 ms unless a
/// process raised the timer resolution), where `std::thread::sleep` has used a
/// high-resolution waitable timer since Rust 1.75; `Sleep(0)` only yields the time slice.
/// Elsewhere it is `std::thread::sleep` (a relative `nanosleep(2)` on Linux and macOS).
/// Never panics.
pub fn plain_sleep(ms: u32) {
    <sys::Os as Platform>::plain_sleep(ms);
}

/// A number that is the same in every call of one process and differs in the child of every
/// `fork(2)` made after the first call: state made by a process that read `n` belongs to
/// another process (a parent) once a call here returns other than `n`. After the first
/// call, one atomic load. Threads other than the forking one do not exist in a child, so
/// this is how a thread's owner finds that its thread is gone.
///
/// # Implementation notes
///
/// On Linux and macOS a `pthread_atfork(3)` child handler, registered on the first call,
/// counts the forks (the process id stands in should the registration be refused).
/// Elsewhere it is always 0: Windows has no `fork`.
pub fn fork_generation() -> u64 {
    <sys::Os as Platform>::fork_generation()
}

/// Says that the calling thread's timer slack is its owner's choice from now on, so the
/// waits here leave it alone (they otherwise cut it to 1 ns, once per thread).
pub fn timer_slack_chosen() {
    <sys::Os as Platform>::timer_slack_chosen();
}

/// Says that the calling thread's scheduling policy changed: leaving a real-time policy
/// resets the timer slack to the process default (Linux 6.7 and later), so the next wait
/// sets it again.
pub fn timer_slack_reset() {
    <sys::Os as Platform>::timer_slack_reset();
}

/// Nanoseconds to `mach_absolute_time` ticks, rounded up so that a tick deadline is not
/// early.
#[cfg(any(target_os = "macos", target_os = "ios"))]
pub fn nanos_to_mach_ticks(nanos: u64) -> u64 {
    sys::nanos_to_ticks(nanos)
}

mod sys;

/// Picks a crate's platform backend by OS, the one mapping of OS to backend in the
/// workspace. Declares, beside the invoking module, the module `linux` (Linux, Android),
/// `macos` (macOS, iOS) or `windows`, and `generic` where none of them applies and in every
/// test build (so the fallback is known to fit the interface); then re-exports the listed
/// items from the one in use.
///
/// ```text
/// // In a crate's sys/mod.rs, beside linux.rs, macos.rs, windows.rs and generic.rs:
/// punctual_sys::backends!(Os);
/// ```
#[macro_export]
macro_rules! backends {
    ($($item:ident),+ $(,)?) => {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        mod linux;
        #[cfg(any(target_os = "linux", target_os = "android"))]
        pub(crate) use linux::{$($item),+};

        #[cfg(any(target_os = "macos", target_os = "ios"))]
        mod macos;
        #[cfg(any(target_os = "macos", target_os = "ios"))]
        pub(crate) use macos::{$($item),+};

        #[cfg(windows)]
        mod windows;
        #[cfg(windows)]
        pub(crate) use windows::{$($item),+};

        #[cfg(any(
            test,
            not(any(
                target_os = "linux",
                target_os = "android",
                target_os = "macos",
                target_os = "ios",
                windows
            ))
        ))]
        mod generic;
        #[cfg(not(any(
            target_os = "linux",
            target_os = "android",
            target_os = "macos",
            target_os = "ios",
            windows
        )))]
        pub(crate) use generic::{$($item),+};
    };
}

/// The time from `now` to `deadline` in whole nanoseconds, saturating at `u64::MAX`
/// (about 584 years). Shared by the backends that compute an OS-clock target.
#[allow(dead_code)]
fn nanos_until(deadline: Instant, now: Instant) -> u64 {
    u64::try_from(deadline.saturating_duration_since(now).as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
