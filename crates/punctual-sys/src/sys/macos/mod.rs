//! macOS: `mach_wait_until(3)` on `mach_absolute_time` ticks.
//!
//! `std::time::Instant` reads `CLOCK_UPTIME_RAW`, which is `mach_absolute_time` scaled to
//! nanoseconds, so a tick deadline rounded up from the `Instant` deadline is not early.
//! The interruptible wait, on the same ticks, is in `waiter.rs`; the CPU clocks and stdio
//! are `unix.rs`'s.

use std::io::{self, Read, Write};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::unix;
use crate::{nanos_until, CoarseClock, NativeTimer, Platform};

mod waiter;

pub(crate) use waiter::Waiter;

pub(crate) struct Os;

#[repr(C)]
#[derive(Clone, Copy)]
struct Timebase {
    numer: u32,
    denom: u32,
}

extern "C" {
    fn mach_absolute_time() -> u64;
    fn mach_timebase_info(info: *mut Timebase) -> libc::c_int;
    fn mach_wait_until(deadline: u64) -> libc::c_int;
}

fn timebase() -> Timebase {
    static TIMEBASE: OnceLock<Timebase> = OnceLock::new();
    *TIMEBASE.get_or_init(|| {
        let mut info = Timebase { numer: 0, denom: 0 };
        // SAFETY: `info` is a valid, writable mach_timebase_info_data_t.
        let rc = unsafe { mach_timebase_info(&mut info) };
        if rc != 0 || info.numer == 0 || info.denom == 0 {
            // Apple documents ticks as nanoseconds when no timebase is known.
            Timebase { numer: 1, denom: 1 }
        } else {
            info
        }
    })
}

/// Nanoseconds to ticks, rounded up so that the tick deadline is not early.
pub(crate) fn nanos_to_ticks(nanos: u64) -> u64 {
    let tb = timebase();
    let ticks = (u128::from(nanos) * u128::from(tb.denom)).div_ceil(u128::from(tb.numer));
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_micros(150);

    fn wait_until(deadline: Instant, now: Instant) {
        // SAFETY: mach_absolute_time has no preconditions.
        let start = unsafe { mach_absolute_time() };
        let target = start.saturating_add(nanos_to_ticks(nanos_until(deadline, now)));
        // SAFETY: mach_wait_until takes any tick count; it returns KERN_ABORTED when the
        // thread is interrupted, which the caller handles by re-checking the clock.
        unsafe { mach_wait_until(target) };
    }

    fn native_timer() -> NativeTimer {
        let tb = timebase();
        NativeTimer {
            mechanism: "mach_wait_until",
            high_resolution: true,
            resolution: Some(Duration::from_nanos(
                (u64::from(tb.numer) / u64::from(tb.denom)).max(1),
            )),
            degraded: None,
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
        None
    }

    fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
        unix::raw_stdin()
    }

    fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
        unix::raw_stdout()
    }
}
