//! What Linux and macOS share.

use std::ffi::CStr;

use super::{SystemInfo, INTERRUPTED};

/// `uname(2)`.
pub fn uname() -> Option<SystemInfo> {
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
    Some(SystemInfo {
        sysname: field(&name.sysname),
        nodename: field(&name.nodename),
        release: field(&name.release),
        version: field(&name.version),
        machine: field(&name.machine),
    })
}

extern "C" fn on_sigint(_: libc::c_int) {
    if INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe (signal-safety(7)); the second Ctrl-C means
        // "stop now", results or not.
        unsafe { libc::_exit(130) };
    }
}

/// SIGINT sets [`INTERRUPTED`]; a second one exits with 130 (128 + SIGINT), as the shell
/// reports a process killed by it.
pub fn catch_interrupt() -> bool {
    // SAFETY: the handler only touches an atomic and calls _exit, both async-signal-safe
    // (signal-safety(7)); SA_RESTART keeps other threads' blocking calls going.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut()) == 0
    }
}

/// Starts `command` in a process group of its own: a terminal's Ctrl-C goes to its
/// foreground process group only (setpgid(2), termios(3) on ISIG).
pub fn own_process_group(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
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
