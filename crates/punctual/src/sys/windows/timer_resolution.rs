//! Windows 11's power throttling of timer resolution, and the process's opt-out of it:
//! `SetProcessInformation(ProcessPowerThrottling)` with
//! `PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION` in the control mask and not in the
//! state mask. Looked up at run time: Windows 7 and Wine 8 lack the function, and a static
//! import would stop the program from starting there.

use std::ffi::c_void;

use windows_sys::Win32::Foundation::HANDLE;
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, ProcessPowerThrottling, PROCESS_INFORMATION_CLASS,
    PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION, PROCESS_POWER_THROTTLING_STATE,
};

use crate::rt::RtError;

type SetProcessInformation =
    unsafe extern "system" fn(HANDLE, PROCESS_INFORMATION_CLASS, *const c_void, u32) -> i32;

fn set_process_information() -> Option<SetProcessInformation> {
    let kernel32: Vec<u16> = "kernel32.dll\0".encode_utf16().collect();
    // SAFETY: a NUL-terminated UTF-16 name; kernel32 is loaded in every process.
    let module = unsafe { GetModuleHandleW(kernel32.as_ptr()) };
    if module.is_null() {
        return None;
    }
    // SAFETY: a loaded module and a NUL-terminated ASCII name.
    let found = unsafe { GetProcAddress(module, c"SetProcessInformation".as_ptr().cast())? };
    // SAFETY: the export of that name has this signature (SetProcessInformation, Win32 docs).
    Some(unsafe {
        std::mem::transmute::<unsafe extern "system" fn() -> isize, SetProcessInformation>(found)
    })
}

pub(super) fn keep_timer_resolution() -> Result<(), RtError> {
    let Some(set) = set_process_information() else {
        return Err(RtError::Unsupported {
            what: "opting out of timer-resolution power throttling",
            platform: "this Windows (no SetProcessInformation: before Windows 8, or Wine)",
        });
    };
    let state = PROCESS_POWER_THROTTLING_STATE {
        Version: 1,
        ControlMask: PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION,
        StateMask: 0,
    };
    // SAFETY: the pseudo-handle of this process, a valid state of the size given.
    let ok = unsafe {
        set(
            GetCurrentProcess(),
            ProcessPowerThrottling,
            (&state as *const PROCESS_POWER_THROTTLING_STATE).cast(),
            std::mem::size_of::<PROCESS_POWER_THROTTLING_STATE>() as u32,
        )
    };
    if ok == 0 {
        return Err(RtError::Io {
            what: "SetProcessInformation(ProcessPowerThrottling)",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(())
}
