//! Windows: `GetSystemTimes`, the working set from `GetProcessMemoryInfo`, thread
//! priorities, and the timer resolution from `NtQueryTimerResolution`.

use std::time::Duration;

use std::sync::atomic::Ordering;

use windows_sys::Win32::Foundation::{BOOL, FILETIME};
use windows_sys::Win32::System::Console::{SetConsoleCtrlHandler, CTRL_C_EVENT};
use windows_sys::Win32::System::ProcessStatus::{GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
use windows_sys::Win32::System::SystemInformation::OSVERSIONINFOW;
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentThread, GetCurrentThreadId, GetPriorityClass, GetSystemTimes,
    GetThreadPriority, SetThreadPriority, CREATE_NEW_PROCESS_GROUP, THREAD_PRIORITY_HIGHEST,
    THREAD_PRIORITY_LOWEST,
};

use super::{CpuTimes, Facts, LoadPriority, Platform, SystemInfo, INTERRUPTED};

pub struct Os;

#[link(name = "ntdll")]
extern "system" {
    fn NtQueryTimerResolution(min: *mut u32, max: *mut u32, current: *mut u32) -> i32;
    fn RtlGetVersion(info: *mut OSVERSIONINFOW) -> i32;
}

fn filetime(ft: FILETIME) -> Duration {
    let hundreds = (u64::from(ft.dwHighDateTime) << 32) | u64::from(ft.dwLowDateTime);
    Duration::from_nanos(hundreds.saturating_mul(100))
}

fn timer_resolution() -> Option<String> {
    let (mut coarsest, mut finest, mut current) = (0u32, 0u32, 0u32);
    // SAFETY: three valid, writable u32s; the call only fills them (100 ns units).
    let status = unsafe { NtQueryTimerResolution(&mut coarsest, &mut finest, &mut current) };
    let ms = |v: u32| f64::from(v) / 10_000.0;
    // Finer than the coarsest: some process holds a timeBeginPeriod.
    let raised = if current < coarsest {
        "a timeBeginPeriod is in force"
    } else {
        "no timeBeginPeriod in force"
    };
    (status == 0).then(|| {
        format!(
            "{:.3} ms now (coarsest {:.3} ms, finest {:.3} ms): {raised}",
            ms(current),
            ms(coarsest),
            ms(finest)
        )
    })
}

fn version() -> Option<String> {
    // SAFETY: OSVERSIONINFOW is plain data; zeroed is valid before the size is set.
    let mut info: OSVERSIONINFOW = unsafe { std::mem::zeroed() };
    info.dwOSVersionInfoSize = std::mem::size_of::<OSVERSIONINFOW>() as u32;
    // SAFETY: `info` is valid and writable with its size field set (RtlGetVersion).
    let status = unsafe { RtlGetVersion(&mut info) };
    (status == 0).then(|| {
        format!(
            "{}.{} build {}",
            info.dwMajorVersion, info.dwMinorVersion, info.dwBuildNumber
        )
    })
}

const ZERO_FILETIME: FILETIME = FILETIME {
    dwLowDateTime: 0,
    dwHighDateTime: 0,
};

/// Runs on a thread the system creates for the event (HandlerRoutine callback).
unsafe extern "system" fn on_ctrl(event: u32) -> BOOL {
    if event != CTRL_C_EVENT {
        return 0;
    }
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        std::process::exit(130);
    }
    1
}

impl Platform for Os {
    const THREAD_CPU_CLOCK: &'static str =
        "GetThreadTimes (charged in scheduler ticks: exact only as an average over many waits)";

    fn resident_bytes() -> Option<u64> {
        // SAFETY: PROCESS_MEMORY_COUNTERS is plain data; zeroed is valid before the call.
        let mut counters: PROCESS_MEMORY_COUNTERS = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
        counters.cb = size;
        // SAFETY: the current-process pseudo-handle is valid; `counters` is writable and
        // `size` is its size (GetProcessMemoryInfo).
        let ok = unsafe { GetProcessMemoryInfo(GetCurrentProcess(), &mut counters, size) };
        (ok != 0).then_some(counters.WorkingSetSize as u64)
    }

    fn set_load_priority(priority: LoadPriority) -> Result<String, String> {
        let (level, name) = match priority {
            LoadPriority::Lower => (THREAD_PRIORITY_LOWEST, "THREAD_PRIORITY_LOWEST"),
            LoadPriority::Same => {
                return Ok("THREAD_PRIORITY_NORMAL, as the measuring threads".into())
            }
            LoadPriority::Higher => (THREAD_PRIORITY_HIGHEST, "THREAD_PRIORITY_HIGHEST"),
        };
        // SAFETY: the current-thread pseudo-handle is valid; `level` is a documented value.
        if unsafe { SetThreadPriority(GetCurrentThread(), level) } != 0 {
            Ok(name.to_string())
        } else {
            Err(format!(
                "SetThreadPriority({name}) refused: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    fn facts() -> Facts {
        // SAFETY: pseudo-handles of the current process and thread are always valid.
        let (class, thread) = unsafe {
            (
                GetPriorityClass(GetCurrentProcess()),
                GetThreadPriority(GetCurrentThread()),
            )
        };
        Facts {
            os: version().map_or("Windows".to_string(), |v| format!("Windows {v}")),
            cpu_model: std::env::var("PROCESSOR_IDENTIFIER").ok(),
            scheduling: Some(format!(
                "priority class {class:#x}, thread priority {thread}"
            )),
            timer_resolution: timer_resolution(),
            timer_throttling: super::waits::windows::timer_resolution_throttling(),
            ..Facts::default()
        }
    }

    fn thread_id() -> u64 {
        // SAFETY: GetCurrentThreadId has no preconditions.
        u64::from(unsafe { GetCurrentThreadId() })
    }

    fn system_info() -> SystemInfo {
        SystemInfo {
            sysname: "Windows".to_string(),
            nodename: std::env::var("COMPUTERNAME").unwrap_or_default(),
            release: version().unwrap_or_default(),
            version: String::new(),
            machine: std::env::consts::ARCH.to_string(),
        }
    }

    fn cpu_times() -> Option<CpuTimes> {
        let (mut idle, mut kernel, mut user) = (ZERO_FILETIME, ZERO_FILETIME, ZERO_FILETIME);
        // SAFETY: three valid, writable FILETIMEs (GetSystemTimes).
        let ok = unsafe { GetSystemTimes(&mut idle, &mut kernel, &mut user) };
        // Kernel time includes idle time (GetSystemTimes, Remarks).
        let total = filetime(kernel) + filetime(user);
        (ok != 0).then(|| CpuTimes {
            busy: total.saturating_sub(filetime(idle)),
            total,
        })
    }

    fn beyond_ctrl_c(command: &mut std::process::Command) {
        use std::os::windows::process::CommandExt;
        // CREATE_NEW_PROCESS_GROUP: "CTRL+C signals will be disabled for all processes
        // within the new process group" (Process Creation Flags).
        command.creation_flags(CREATE_NEW_PROCESS_GROUP);
    }

    fn catch_interrupt() -> bool {
        // SAFETY: `on_ctrl` has the HandlerRoutine signature and lives for the whole process
        // (SetConsoleCtrlHandler).
        unsafe { SetConsoleCtrlHandler(Some(on_ctrl), 1) != 0 }
    }
}
