use std::ffi::c_char;

use crate::clock;
use crate::status::{self, guard_value};

/// The major version of the library this header belongs to.
pub const PUNCTUAL_VERSION_MAJOR: u32 = 0;
/// The minor version of the library this header belongs to.
pub const PUNCTUAL_VERSION_MINOR: u32 = 1;
/// The patch version of the library this header belongs to.
pub const PUNCTUAL_VERSION_PATCH: u32 = 0;
/// `MAJOR * 10000 + MINOR * 100 + PATCH`, as `punctual_version_number()` returns it, so a
/// program can compare the header it was compiled with against the library it runs with.
pub const PUNCTUAL_VERSION_NUMBER: u32 =
    PUNCTUAL_VERSION_MAJOR * 10000 + PUNCTUAL_VERSION_MINOR * 100 + PUNCTUAL_VERSION_PATCH;

/// The library's version as a string, e.g. `"0.1.0"`. Static; never `NULL`.
#[no_mangle]
pub extern "C" fn punctual_version() -> *const c_char {
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

/// The running library's `PUNCTUAL_VERSION_NUMBER`.
#[no_mangle]
pub extern "C" fn punctual_version_number() -> u32 {
    PUNCTUAL_VERSION_NUMBER
}

/// A fixed, one-line description of a status code (`PUNCTUAL_OK` or a `PUNCTUAL_E_*`
/// code); unknown codes get a description saying so. Static; never `NULL`. For what went
/// wrong in a particular call, and how to fix it, see `punctual_last_error_message()`.
#[no_mangle]
pub extern "C" fn punctual_strerror(code: i32) -> *const c_char {
    status::describe(code).as_ptr()
}

/// The message of the most recent call on this thread that failed: what was wrong, with
/// the values involved and, where there is one, the fix (for a refused real-time priority:
/// `CAP_SYS_NICE`, `ulimit -r`, `rtprio` in limits.conf, `LimitRTPRIO=`). Calls that
/// succeed leave it alone. An empty string before any failure. Never `NULL`; valid until
/// the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn punctual_last_error_message() -> *const c_char {
    guard_value(c"".as_ptr(), status::last_error_message)
}

/// Now, in nanoseconds of the monotonic clock every deadline in this API uses: the clock
/// of Rust's `Instant`, `CLOCK_MONOTONIC` on Linux (what `clock_gettime(CLOCK_MONOTONIC)`
/// and libstdc++'s `std::chrono::steady_clock` read), `QueryPerformanceCounter` scaled to
/// nanoseconds on Windows, `CLOCK_UPTIME_RAW` on macOS. Never ahead of that clock read
/// directly; never negative. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_now_ns() -> i64 {
    guard_value(0, clock::now_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_constants_are_the_crate_version() {
        let version =
            format!("{PUNCTUAL_VERSION_MAJOR}.{PUNCTUAL_VERSION_MINOR}.{PUNCTUAL_VERSION_PATCH}");
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
    }
}
