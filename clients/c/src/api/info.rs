use std::collections::HashSet;
use std::ffi::{c_char, CStr, CString};
use std::sync::{LazyLock, Mutex};

use crate::clock;
use crate::status::guard;
use crate::sys::{self, Report};

/// How the native timer behaves for the calling thread. Versioned like `punctual_wake`:
/// set `size` to `sizeof(punctual_timer_info)` (or use `PUNCTUAL_TIMER_INFO_INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct punctual_timer_info {
    /// In: `sizeof(punctual_timer_info)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// 1 when the native timer can wake at a finer grain than a scheduler tick (Linux
    /// hrtimers, Windows' `CREATE_WAITABLE_TIMER_HIGH_RESOLUTION`, macOS always), else 0.
    pub high_resolution: u32,
    /// The OS call behind the native strategy, e.g.
    /// `"clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"`. Static: valid until the
    /// process exits.
    pub mechanism: *const c_char,
    /// The resolution the OS reports for its monotonic clock, or -1 where it reports none.
    pub resolution_ns: i64,
    /// The calling thread's timer slack in force (Linux; 0 under a real-time policy), or -1
    /// where the OS has none.
    pub timer_slack_ns: i64,
    /// Why the native timer is not the best one this OS family offers, or `NULL` when it
    /// is. Static: valid until the process exits.
    pub degraded: *const c_char,
}

impl Report for punctual_timer_info {
    const NAME: &'static str = "punctual_timer_info";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

/// The strings timer info hands out, kept for the life of the process: a few distinct ones
/// ever exist (a mechanism per platform, a reason per kind of degradation).
static STRINGS: LazyLock<Mutex<HashSet<&'static CStr>>> = LazyLock::new(Default::default);

pub(super) fn intern(text: &str) -> *const c_char {
    let owned = CString::new(text.replace('\0', " ")).unwrap_or_default();
    let mut strings = STRINGS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(kept) = strings.get(owned.as_c_str()) {
        return kept.as_ptr();
    }
    let kept: &'static CStr = Box::leak(owned.into_boxed_c_str());
    strings.insert(kept);
    kept.as_ptr()
}

/// Fills `*info` with the native timer as the calling thread sees it (which mechanism,
/// whether it is high resolution, and why it is degraded when it is).
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, or `PUNCTUAL_E_INVALID_ARGUMENT` for an
/// `info->size` too small. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_get_timer_info(info: *mut punctual_timer_info) -> i32 {
    guard(|| {
        sys::check_report(info, "info", false)?;
        let timer = punctual::timer_info();
        let filled = punctual_timer_info {
            size: 0,
            high_resolution: u32::from(timer.high_resolution),
            mechanism: intern(timer.mechanism),
            resolution_ns: timer.resolution.map_or(-1, clock::duration_ns),
            timer_slack_ns: timer.timer_slack.map_or(-1, clock::duration_ns),
            degraded: timer.degraded.as_deref().map_or(std::ptr::null(), intern),
        };
        sys::write_report(info, filled, "info", false)
    })
}
