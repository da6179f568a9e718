//! Windows' wait primitives as a program calls them, for `bench`'s OS methods: `Sleep`,
//! `timeBeginPeriod`/`timeEndPeriod`, a normal-resolution waitable timer, the mingw C
//! runtime's `nanosleep` and `usleep`; and what the environment header says of the timer
//! (`timeBeginPeriod` in force, power throttling of timer resolution).

use std::io;
use std::time::Duration;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, WAIT_OBJECT_0};
use windows_sys::Win32::Media::{timeBeginPeriod, timeEndPeriod};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Performance::QueryPerformanceFrequency;
use windows_sys::Win32::System::Threading::{
    CreateWaitableTimerExW, GetCurrentProcess, ProcessPowerThrottling, SetWaitableTimer,
    WaitForSingleObject, INFINITE, PROCESS_INFORMATION_CLASS,
    PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION, PROCESS_POWER_THROTTLING_STATE,
    TIMER_ALL_ACCESS,
};

// The mingw-w64 C runtime's: `usleep` from libmingwex (which Rust's windows-gnu target
// links), `nanosleep` from winpthreads' libpthread (linked statically, so that the program
// needs no libwinpthread-1.dll beside it).
extern "C" {
    fn usleep(micros: u32) -> i32;
}
#[link(name = "pthread", kind = "static")]
extern "C" {
    fn nanosleep(request: *const MingwTimespec, left: *mut MingwTimespec) -> i32;
}

/// mingw-w64's `struct timespec` on x86_64: a 64-bit `time_t` and a `long` (32 bits).
#[repr(C)]
struct MingwTimespec {
    tv_sec: i64,
    tv_nsec: i32,
}

/// `Sleep(ms)`: the plain sleep `punctual-sys` writes once for every crate that times it.
pub fn sleep_ms(ms: u32) {
    punctual_sys::plain_sleep(ms);
}

/// `timeBeginPeriod(ms)` held until dropped (then `timeEndPeriod(ms)`).
#[derive(Debug)]
pub struct TimerPeriod(u32);

impl TimerPeriod {
    pub fn begin(ms: u32) -> io::Result<TimerPeriod> {
        // SAFETY: timeBeginPeriod takes a plain period in ms; it returns TIMERR_NOCANDO (97)
        // for one out of range.
        match unsafe { timeBeginPeriod(ms) } {
            0 => Ok(TimerPeriod(ms)),
            code => Err(io::Error::other(format!(
                "timeBeginPeriod({ms}) refused (MMRESULT {code})"
            ))),
        }
    }
}

impl Drop for TimerPeriod {
    fn drop(&mut self) {
        // SAFETY: ends the period this value began, once.
        unsafe { timeEndPeriod(self.0) };
    }
}

/// A waitable timer without `CREATE_WAITABLE_TIMER_HIGH_RESOLUTION`: it expires on the
/// system timer's interrupt.
#[derive(Debug)]
pub struct WaitableTimer(HANDLE);

// SAFETY: a waitable timer handle may be used from any thread; each method owns its own.
unsafe impl Send for WaitableTimer {}

impl WaitableTimer {
    pub fn normal() -> io::Result<WaitableTimer> {
        // SAFETY: no attributes or name; flags 0 (a normal synchronization timer).
        let handle = unsafe {
            CreateWaitableTimerExW(std::ptr::null(), std::ptr::null(), 0, TIMER_ALL_ACCESS)
        };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(WaitableTimer(handle))
    }

    /// Sets the timer `wait_100ns` ahead (a negative, relative due time) and waits for it.
    pub fn wait_100ns(&self, wait_100ns: i64) -> io::Result<()> {
        let due = -wait_100ns.max(1);
        // SAFETY: our open timer handle, a valid due time, no period, no completion routine.
        if unsafe { SetWaitableTimer(self.0, &due, 0, None, std::ptr::null(), 0) } == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: waits on our open handle.
        match unsafe { WaitForSingleObject(self.0, INFINITE) } {
            WAIT_OBJECT_0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Drop for WaitableTimer {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// mingw's `nanosleep` for `wait`, resumed with what it says is left if it stops short.
pub fn mingw_nanosleep(wait: Duration) -> io::Result<()> {
    let request = MingwTimespec {
        tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: wait.subsec_nanos() as i32,
    };
    let mut left = MingwTimespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: both pointers are valid timespecs of mingw's layout; it reads the first and
    // writes the second.
    match unsafe { nanosleep(&request, &mut left) } {
        0 => Ok(()),
        _ => Err(io::Error::other("mingw nanosleep failed")),
    }
}

/// mingw's `usleep(micros)`.
pub fn mingw_usleep(micros: u32) -> io::Result<()> {
    // SAFETY: usleep takes a plain count of microseconds.
    match unsafe { usleep(micros) } {
        0 => Ok(()),
        _ => Err(io::Error::other("mingw usleep failed")),
    }
}

/// Whether Windows may ignore this process's timer-resolution requests to save power
/// (Windows 11: `PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION`), as
/// `GetProcessInformation(ProcessPowerThrottling)` tells; `None` where it cannot tell.
/// The function is looked up at run time: Windows 7 and Wine 8 do not have it, and a
/// static import of it would end the program there.
pub fn timer_resolution_throttling() -> Option<String> {
    type GetProcessInformation = unsafe extern "system" fn(
        HANDLE,
        PROCESS_INFORMATION_CLASS,
        *mut core::ffi::c_void,
        u32,
    ) -> i32;
    let kernel32: Vec<u16> = "kernel32.dll\0".encode_utf16().collect();
    // SAFETY: a NUL-terminated UTF-16 name; kernel32 is loaded in every process.
    let module = unsafe { GetModuleHandleW(kernel32.as_ptr()) };
    if module.is_null() {
        return None;
    }
    // SAFETY: a loaded module and a NUL-terminated ASCII name.
    let found = unsafe { GetProcAddress(module, c"GetProcessInformation".as_ptr().cast())? };
    // SAFETY: the export of that name has this signature (GetProcessInformation, Win32 docs).
    let get_process_information: GetProcessInformation = unsafe { std::mem::transmute(found) };
    let mut state = PROCESS_POWER_THROTTLING_STATE {
        Version: 1,
        ControlMask: 0,
        StateMask: 0,
    };
    // SAFETY: the pseudo-handle of this process, a valid, writable state of the size given.
    let ok = unsafe {
        get_process_information(
            GetCurrentProcess(),
            ProcessPowerThrottling,
            (&mut state as *mut PROCESS_POWER_THROTTLING_STATE).cast(),
            std::mem::size_of::<PROCESS_POWER_THROTTLING_STATE>() as u32,
        )
    };
    if ok == 0 {
        return None;
    }
    let bit = PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION;
    Some(
        match (state.ControlMask & bit != 0, state.StateMask & bit != 0) {
            (false, _) => {
                "system's choice (Windows 11 may ignore timeBeginPeriod while the window is hidden)"
            }
            (true, true) => "on: timer-resolution requests may be ignored",
            (true, false) => "off: this process opted out (punctual::rt::keep_timer_resolution)",
        }
        .to_string(),
    )
}

/// The clock `Instant` reads (`QueryPerformanceCounter`) and its ticks per second
/// (`QueryPerformanceFrequency`: 10 MHz on Windows 10 and later).
pub fn instant_clock() -> super::TickClock {
    let mut hz = 0i64;
    // SAFETY: a valid, writable i64; the call cannot fail on Windows XP and later.
    unsafe { QueryPerformanceFrequency(&mut hz) };
    super::TickClock {
        name: "QPC",
        hz: u64::try_from(hz).unwrap_or(0).max(1),
    }
}
