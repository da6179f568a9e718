//! What Linux and macOS share.

use std::ffi::CStr;
use std::time::Duration;

pub fn clock(id: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; an unsupported clock id makes the call
    // fail with EINVAL, which is checked (clock_gettime(2)).
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

pub fn thread_cpu_time() -> Option<Duration> {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

pub fn process_cpu_time() -> Option<Duration> {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// `uname(2)`: (sysname, release, version).
pub fn uname() -> Option<(String, String, String)> {
    // SAFETY: utsname is plain data; zeroed is a valid value to pass for filling.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a valid, writable utsname (uname(2)).
    if unsafe { libc::uname(&mut name) } != 0 {
        return None;
    }
    let field = |f: &[libc::c_char]| {
        // SAFETY: uname fills each field with a NUL-terminated string within the array.
        unsafe { CStr::from_ptr(f.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    Some((
        field(&name.sysname),
        field(&name.release),
        field(&name.version),
    ))
}

/// The calling process's nice value.
pub fn nice() -> Option<i32> {
    // SAFETY: clearing errno before getpriority is how its -1 is told from an error
    // (getpriority(2)); errno is thread-local.
    unsafe {
        *errno_location() = 0;
        let value = libc::getpriority(libc::PRIO_PROCESS, 0);
        (*errno_location() == 0).then_some(value)
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
unsafe fn errno_location() -> *mut libc::c_int {
    // SAFETY: __errno_location always returns the calling thread's errno.
    unsafe { libc::__errno_location() }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
unsafe fn errno_location() -> *mut libc::c_int {
    // SAFETY: __error always returns the calling thread's errno.
    unsafe { libc::__error() }
}
