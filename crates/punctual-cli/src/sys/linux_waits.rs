//! Linux's wait primitives as a program calls them, for `bench`'s OS methods (one function
//! or type per primitive): relative `nanosleep(2)` at the thread's default timer slack,
//! an absolute `timerfd_create(2)` timer, `epoll_wait(2)` and `poll(2)` with their
//! millisecond timeouts, `select(2)` with its microsecond one, and `sched_yield(2)`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

pub use super::unix_waits::nanosleep;
use super::unix_waits::{check, interrupted, timespec};

/// Puts the calling thread's timer slack back to its default (`PR_SET_TIMERSLACK` with 0,
/// prctl(2)) and returns what it is now: the slack most programs sleep with. punctual's
/// native sleep cuts it to 1 ns on its own thread; a method measuring the default calls
/// this first.
pub fn default_timer_slack() -> io::Result<Duration> {
    // SAFETY: PR_SET_TIMERSLACK with 0 only resets the calling thread's current slack to its
    // default; the unused arguments must be zero (prctl(2)).
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 0 as libc::c_ulong, 0, 0, 0) })?;
    // SAFETY: PR_GET_TIMERSLACK takes no argument and returns the calling thread's slack.
    let nanos = check(unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) })?;
    Ok(Duration::from_nanos(nanos as u64))
}

/// `CLOCK_MONOTONIC` at `deadline`, never before it: `Instant` is read first, so the OS
/// clock's reading can only be later than the instant it is paired with.
fn monotonic_at(deadline: Instant) -> libc::timespec {
    let left = deadline.saturating_duration_since(Instant::now());
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; CLOCK_MONOTONIC always exists
    // (clock_gettime(2)).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    let now = Duration::new(now.tv_sec as u64, now.tv_nsec as u32);
    timespec(now.saturating_add(left))
}

/// A `CLOCK_MONOTONIC` timerfd, armed with an absolute expiry and read until it fires.
#[derive(Debug)]
pub struct TimerFd(OwnedFd);

impl TimerFd {
    pub fn new() -> io::Result<TimerFd> {
        // SAFETY: timerfd_create takes a clock id and flags and returns a new descriptor.
        let fd = check(unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) })?;
        // SAFETY: `fd` was just created and nothing else owns it.
        Ok(TimerFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Arms the timer for `deadline` (`TFD_TIMER_ABSTIME`) and blocks in `read(2)` until it
    /// expires.
    pub fn wait_until(&self, deadline: Instant) -> io::Result<()> {
        let spec = libc::itimerspec {
            it_interval: timespec(Duration::ZERO),
            it_value: monotonic_at(deadline),
        };
        // SAFETY: `spec` is a valid itimerspec and the old value may be null
        // (timerfd_settime(2)); the descriptor is ours and open.
        check(unsafe {
            libc::timerfd_settime(
                self.0.as_raw_fd(),
                libc::TFD_TIMER_ABSTIME,
                &spec,
                std::ptr::null_mut(),
            )
        })?;
        let mut expirations = 0u64;
        loop {
            // SAFETY: reads 8 bytes, the expiration count, into a u64 we own (timerfd(2)).
            let rc = unsafe {
                libc::read(
                    self.0.as_raw_fd(),
                    (&mut expirations as *mut u64).cast(),
                    std::mem::size_of::<u64>(),
                )
            };
            let result = check(rc as libc::c_int);
            if !interrupted(&result) {
                return result.map(drop);
            }
        }
    }
}

/// An epoll instance with nothing registered, so `epoll_wait` returns only on its timeout.
#[derive(Debug)]
pub struct Epoll(OwnedFd);

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes flags and returns a new descriptor.
        let fd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: `fd` was just created and nothing else owns it.
        Ok(Epoll(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// `epoll_wait(2)` for `timeout_ms`, again with the same timeout after a signal.
    pub fn wait_ms(&self, timeout_ms: i32) -> io::Result<()> {
        let mut event = libc::epoll_event { events: 0, u64: 0 };
        loop {
            // SAFETY: room for one event at a valid pointer; the descriptor is ours and open.
            let result =
                check(unsafe { libc::epoll_wait(self.0.as_raw_fd(), &mut event, 1, timeout_ms) });
            if !interrupted(&result) {
                return result.map(drop);
            }
        }
    }
}

/// `poll(2)` on no descriptors for `timeout_ms`, again after a signal.
pub fn poll_ms(timeout_ms: i32) -> io::Result<()> {
    loop {
        // SAFETY: no descriptors, so the null array is never read (poll(2)).
        let result = check(unsafe { libc::poll(std::ptr::null_mut(), 0, timeout_ms) });
        if !interrupted(&result) {
            return result.map(drop);
        }
    }
}

/// `select(2)` on no descriptors for `seconds` and `micros`, resumed with what Linux left in
/// the timeval after a signal.
// The libc crate marks `time_t` deprecated on musl, for its coming change to 64 bits;
// `try_from` saturates at whichever width it has.
#[allow(deprecated)]
pub fn select(seconds: u64, micros: u32) -> io::Result<()> {
    let mut timeout = libc::timeval {
        tv_sec: libc::time_t::try_from(seconds).unwrap_or(libc::time_t::MAX),
        tv_usec: micros.into(),
    };
    loop {
        // SAFETY: no descriptor sets (null is allowed), a valid, writable timeval (select(2)).
        let result = check(unsafe {
            libc::select(
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut timeout,
            )
        });
        if !interrupted(&result) {
            return result.map(drop);
        }
    }
}

/// `sched_yield(2)`.
pub fn sched_yield() {
    // SAFETY: sched_yield has no arguments and cannot fail on Linux.
    unsafe { libc::sched_yield() };
}

/// The clock `Instant` reads (`CLOCK_MONOTONIC`) and its ticks per second, from its
/// resolution (`clock_getres(2)`).
pub fn instant_clock() -> super::TickClock {
    let mut res = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `res` is a valid, writable timespec; CLOCK_MONOTONIC always exists.
    let rc = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut res) };
    let tick_ns = Duration::new(res.tv_sec as u64, res.tv_nsec as u32).as_nanos();
    let hz = if rc == 0 && tick_ns > 0 {
        (1_000_000_000 / tick_ns) as u64
    } else {
        1_000_000_000
    };
    super::TickClock {
        name: "CLOCK_MONOTONIC",
        hz,
    }
}
