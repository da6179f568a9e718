//! What Linux and macOS share: `clock_gettime(2)` clocks, file descriptors 0 and 1 as
//! plain files, and the count of forks (`pthread_atfork(3)`).

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Forks counted by [`count_fork_in_child`]: the process's fork generation.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Whether the child handler is registered: [`UNWATCHED`], [`WATCHED`], [`UNWATCHABLE`], or
/// while a thread registers it, that thread's process id.
static WATCH: AtomicU64 = AtomicU64::new(UNWATCHED);
const UNWATCHED: u64 = 0;
const WATCHED: u64 = u64::MAX;
/// `pthread_atfork` refused (it fails only for want of memory): the process id stands in.
const UNWATCHABLE: u64 = u64::MAX - 1;
/// Set on a generation that is a process id, so it never equals a count.
const PID_GENERATION: u64 = 1 << 63;

/// The child handler: runs in the child of every `fork(2)`, in the forking thread, before
/// `fork` returns there. One atomic add, which is async-signal-safe, as a handler in the
/// child of a multi-threaded process must be. Having run, it also proves the handler was
/// registered when the parent forked, whatever state [`WATCH`] was copied in.
extern "C" fn count_fork_in_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
    WATCH.store(WATCHED, Ordering::Release);
}

fn process_id() -> u64 {
    u64::from(std::process::id())
}

/// The number of forks between the first call's process and this one, counted by a
/// `pthread_atfork` child handler registered on the first call.
///
/// A thread never waits for a registration begun in another process: the copy of [`WATCH`]
/// that a fork made in the middle of one names the parent, so the child registers itself.
pub(crate) fn fork_generation() -> u64 {
    loop {
        match WATCH.load(Ordering::Acquire) {
            WATCHED => return FORKS.load(Ordering::Relaxed),
            UNWATCHABLE => return process_id() | PID_GENERATION,
            state => {
                let me = process_id();
                if state == me {
                    // Another thread of this process is registering: a few instructions.
                    std::thread::yield_now();
                    continue;
                }
                if WATCH
                    .compare_exchange(state, me, Ordering::Acquire, Ordering::Acquire)
                    .is_err()
                {
                    continue;
                }
                // SAFETY: pthread_atfork(3) takes three optional handlers; the child one is
                // an `extern "C" fn()` that lives as long as the program and only does an
                // atomic add and store. It returns 0 or ENOMEM.
                let rc = unsafe { libc::pthread_atfork(None, None, Some(count_fork_in_child)) };
                let done = if rc == 0 { WATCHED } else { UNWATCHABLE };
                WATCH.store(done, Ordering::Release);
            }
        }
    }
}
