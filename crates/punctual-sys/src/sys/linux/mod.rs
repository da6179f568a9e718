//! Linux: `clock_nanosleep(2)` on `CLOCK_MONOTONIC` with `TIMER_ABSTIME`, with the thread's
//! timer slack cut to 1 ns (`prctl(2)`, `PR_SET_TIMERSLACK`). The interruptible wait is in
//! `waiter.rs`; the CPU clocks and stdio are `unix.rs`'s.
//!
//! `std::time::Instant` reads `CLOCK_MONOTONIC` here, so an absolute target computed on that
//! clock cannot fire before the `Instant` deadline. The target is absolute so that a signal
//! handler interrupting the sleep (`EINTR`) costs a retry, not a drift.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use super::unix::{self, clock_resolution, clock_time};
use crate::{nanos_until, CoarseClock, NativeTimer, Platform};

mod waiter;

pub(crate) use waiter::Waiter;

pub(crate) struct Os;

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// What happened when this thread asked for 1 ns of timer slack.
#[derive(Clone, Copy)]
enum Slack {
    NotYet,
    Set,
    Refused(i32),
}

thread_local! {
    static SLACK: Cell<Slack> = const { Cell::new(Slack::NotYet) };
}

/// Timer slack is a per-thread attribute, so it is set on the sleeping thread, once.
fn prepare_thread() {
    SLACK.with(|slack| {
        if let Slack::NotYet = slack.get() {
            // SAFETY: PR_SET_TIMERSLACK takes one unsigned long and only changes the calling
            // thread's `timer_slack_ns` (prctl(2)); the unused arguments must be zero.
            let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
            slack.set(if rc == 0 {
                Slack::Set
            } else {
                Slack::Refused(io::Error::last_os_error().raw_os_error().unwrap_or(0))
            });
        }
    });
}

fn monotonic_now() -> libc::timespec {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC is always supported
    // (clock_gettime(2)), so the call cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts
}

fn add_nanos(ts: libc::timespec, nanos: u64) -> libc::timespec {
    let total = ts.tv_nsec as u64 + nanos % NANOS_PER_SEC;
    let secs = i64::try_from(nanos / NANOS_PER_SEC + total / NANOS_PER_SEC).unwrap_or(i64::MAX);
    // `tv_sec` is a `c_long` on every Linux libc the crate builds for (64 bits, or 32 on
    // 32-bit ARM's glibc), so a deadline past its range saturates there rather than
    // wrapping into the past. (`libc::time_t` is not named: the libc crate marks it
    // deprecated for musl.)
    #[allow(clippy::useless_conversion)] // i64 to i64 where time_t is 64 bits
    let tv_sec = i64::from(ts.tv_sec).saturating_add(secs);
    libc::timespec {
        #[allow(clippy::useless_conversion)]
        tv_sec: tv_sec.try_into().unwrap_or(libc::c_long::MAX),
        tv_nsec: (total % NANOS_PER_SEC) as libc::c_long,
    }
}

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_micros(100);

    fn wait_until(deadline: Instant, now: Instant) {
        prepare_thread();
        // Read after `now`, so `target` is at or after `deadline` on CLOCK_MONOTONIC.
        let target = add_nanos(monotonic_now(), nanos_until(deadline, now));
        loop {
            // SAFETY: `target` is a valid timespec; the remaining-time pointer may be null
            // with TIMER_ABSTIME (clock_nanosleep(2)).
            let rc = unsafe {
                libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC,
                    libc::TIMER_ABSTIME,
                    &target,
                    std::ptr::null_mut(),
                )
            };
            match rc {
                0 => return,
                libc::EINTR => continue,
                // Not reachable with a normalised timespec; sleep the plain way rather
                // than spin on a failing call.
                _ => return std::thread::sleep(deadline.saturating_duration_since(now)),
            }
        }
    }

    fn native_timer() -> NativeTimer {
        prepare_thread();
        let resolution = clock_resolution(libc::CLOCK_MONOTONIC);
        let high_resolution = resolution.is_some_and(|r| r <= Duration::from_micros(1));
        let mut degraded = Vec::new();
        if !high_resolution {
            degraded.push(format!(
                "CLOCK_MONOTONIC resolution is {resolution:?}: the kernel runs without high-resolution timers"
            ));
        }
        if let Slack::Refused(errno) = SLACK.with(Cell::get) {
            degraded.push(format!(
                "PR_SET_TIMERSLACK refused ({}): sleeps keep the default slack",
                io::Error::from_raw_os_error(errno)
            ));
        }
        NativeTimer {
            mechanism: "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)",
            high_resolution,
            resolution,
            degraded: (!degraded.is_empty()).then(|| degraded.join("; ")),
        }
    }

    fn thread_cpu_time() -> Option<Duration> {
        unix::thread_cpu_time()
    }

    fn process_cpu_time() -> Option<Duration> {
        unix::process_cpu_time()
    }

    fn fork_generation() -> u64 {
        unix::fork_generation()
    }

    fn coarse_clock() -> Option<CoarseClock> {
        clock_resolution(libc::CLOCK_MONOTONIC_COARSE).map(|resolution| CoarseClock {
            name: "CLOCK_MONOTONIC_COARSE",
            resolution: Some(resolution),
            now: coarse_now,
        })
    }

    fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
        unix::raw_stdin()
    }

    fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
        unix::raw_stdout()
    }

    fn timer_slack_chosen() {
        SLACK.with(|slack| slack.set(Slack::Set));
    }

    fn timer_slack_reset() {
        SLACK.with(|slack| slack.set(Slack::NotYet));
    }
}

fn coarse_now() -> Duration {
    clock_time(libc::CLOCK_MONOTONIC_COARSE).unwrap_or_default()
}
