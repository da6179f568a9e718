//! What the Linux and macOS wait primitives share, as POSIX gives it: the `-1` check, the
//! `EINTR` test, a `timespec` of a span, and relative `nanosleep(2)` resumed after a signal.

use std::io;
use std::time::Duration;

/// `span` as a `timespec`, the seconds saturating at `time_t::MAX`.
// The libc crate marks `time_t` deprecated on musl, for its coming change to 64 bits;
// `try_from` saturates at whichever width it has.
#[allow(deprecated)]
pub(super) fn timespec(span: Duration) -> libc::timespec {
    libc::timespec {
        tv_sec: libc::time_t::try_from(span.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: span.subsec_nanos().into(),
    }
}

/// `-1` from a call becomes the OS error; `EINTR` is the one the callers retry.
pub(super) fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

pub(super) fn interrupted(result: &io::Result<libc::c_int>) -> bool {
    matches!(result, Err(e) if e.kind() == io::ErrorKind::Interrupted)
}

/// `nanosleep(2)` for `wait`, resumed with what is left after a signal.
pub fn nanosleep(wait: Duration) -> io::Result<()> {
    let mut request = timespec(wait);
    loop {
        let mut left = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: both pointers are valid timespecs for the call; the kernel only reads the
        // first and writes the second (nanosleep(2)).
        let result = check(unsafe { libc::nanosleep(&request, &mut left) });
        if !interrupted(&result) {
            return result.map(drop);
        }
        request = left;
    }
}
