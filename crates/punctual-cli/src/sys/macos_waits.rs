//! macOS's wait primitives as a program calls them, for `bench`'s OS methods: relative
//! `nanosleep(2)` and a one-shot kqueue timer (`EVFILT_TIMER` with `NOTE_NSECONDS`,
//! kqueue(2)). `mach_wait_until` is punctual's native sleep.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

pub use super::unix_waits::nanosleep;
use super::unix_waits::{check, interrupted};

/// A kqueue on which each wait adds a one-shot nanosecond timer and waits for it.
#[derive(Debug)]
pub struct Kqueue(OwnedFd);

impl Kqueue {
    pub fn new() -> io::Result<Kqueue> {
        // SAFETY: kqueue takes no arguments and returns a new descriptor.
        let fd = check(unsafe { libc::kqueue() })?;
        // SAFETY: `fd` was just created and nothing else owns it.
        Ok(Kqueue(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Adds an `EV_ONESHOT` `EVFILT_TIMER` of `wait_ns` (`NOTE_NSECONDS`) and waits in
    /// `kevent` until it fires.
    pub fn wait_ns(&self, wait_ns: u64) -> io::Result<()> {
        let change = libc::kevent {
            ident: 1,
            filter: libc::EVFILT_TIMER,
            flags: libc::EV_ADD | libc::EV_ONESHOT,
            fflags: libc::NOTE_NSECONDS,
            data: isize::try_from(wait_ns).unwrap_or(isize::MAX),
            udata: std::ptr::null_mut(),
        };
        // SAFETY: a valid kevent struct to read; the event list is null with length 0.
        check(unsafe {
            libc::kevent(
                self.0.as_raw_fd(),
                &change,
                1,
                std::ptr::null_mut(),
                0,
                std::ptr::null(),
            )
        })?;
        // SAFETY: a zeroed kevent is plain data, valid as an output buffer.
        let mut fired: libc::kevent = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: no changes; room for one event at a valid pointer; no timeout.
            let result = check(unsafe {
                libc::kevent(
                    self.0.as_raw_fd(),
                    std::ptr::null(),
                    0,
                    &mut fired,
                    1,
                    std::ptr::null(),
                )
            });
            if !interrupted(&result) {
                return result.map(drop);
            }
        }
    }
}

/// `mach_timebase_info_data_t` (libc's binding of it is deprecated).
#[repr(C)]
struct Timebase {
    numer: u32,
    denom: u32,
}

extern "C" {
    fn mach_timebase_info(info: *mut Timebase) -> libc::c_int;
}

/// The clock `Instant` reads (`mach_absolute_time`) and its ticks per second, from
/// `mach_timebase_info` (24 MHz on Apple silicon, 1 GHz on Intel).
pub fn instant_clock() -> super::TickClock {
    let mut timebase = Timebase { numer: 0, denom: 0 };
    // SAFETY: `timebase` is a valid, writable mach_timebase_info_data_t.
    let rc = unsafe { mach_timebase_info(&mut timebase) };
    let hz = if rc == 0 && timebase.numer > 0 {
        1_000_000_000 * u64::from(timebase.denom) / u64::from(timebase.numer)
    } else {
        1_000_000_000
    };
    super::TickClock {
        name: "mach_absolute_time",
        hz,
    }
}
