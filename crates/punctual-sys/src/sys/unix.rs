//! What Linux and macOS share: `clock_gettime(2)` clocks and file descriptors 0 and 1 as
//! plain files.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::time::Duration;

/// `clock_gettime(2)` and `clock_getres(2)` have one signature.
type ClockFn = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

/// What `call` says of `clock`, or `None` where the OS does not have that clock.
fn timespec_of(call: ClockFn, clock: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; an unsupported clock is reported as -1
    // (clock_gettime(2), clock_getres(2)), not undefined behaviour.
    let rc = unsafe { call(clock, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// A reading of `clock`.
pub(crate) fn clock_time(clock: libc::clockid_t) -> Option<Duration> {
    timespec_of(libc::clock_gettime, clock)
}

/// The resolution the OS reports for `clock`.
#[cfg_attr(not(any(target_os = "linux", target_os = "android")), allow(dead_code))]
pub(crate) fn clock_resolution(clock: libc::clockid_t) -> Option<Duration> {
    timespec_of(libc::clock_getres, clock)
}

/// `CLOCK_THREAD_CPUTIME_ID` (macOS has it since 10.12).
pub(crate) fn thread_cpu_time() -> Option<Duration> {
    clock_time(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// `CLOCK_PROCESS_CPUTIME_ID`: every thread of the process together.
pub(crate) fn process_cpu_time() -> Option<Duration> {
    clock_time(libc::CLOCK_PROCESS_CPUTIME_ID)
}

pub(crate) fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
    let fd = io::stdin().as_fd().try_clone_to_owned()?;
    Ok(Box::new(File::from(fd)))
}

pub(crate) fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
    let fd = io::stdout().as_fd().try_clone_to_owned()?;
    Ok(Box::new(File::from(fd)))
}
