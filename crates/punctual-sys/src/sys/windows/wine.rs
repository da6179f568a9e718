//! Native waits under Wine: `NtDelayExecution`, not alertable.
//!
//! Wine runs a waitable timer's wait through wineserver, whose timeouts are whole
//! milliseconds, so every wait there ends past the next millisecond boundary: a 100 µs wait
//! takes a millisecond or more. A non-alertable `NtDelayExecution` is Wine's own
//! loop of `select()` calls with microsecond timeouts, on the host's timers. It is found
//! at run time, only where ntdll exports `wine_get_version` (Wine's mark); on Windows
//! itself it follows the system timer's resolution, and the waitable timer stays.
//!
//! [`WINDOWS_PATH`] set to `1` in the environment makes a process under Wine take the path
//! Windows takes (the high-resolution waitable timer), so that the tests and the bench run
//! that path too; it is read once, and only where Wine's mark is found, so nothing on Windows
//! itself depends on it.

use std::sync::OnceLock;

use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};

/// What [`crate::NativeTimer::mechanism`] says of it.
pub(super) const MECHANISM: &str = "NtDelayExecution (under Wine: select() with microsecond timeouts)";

/// The environment variable that turns the Wine path off (`1`), read once.
pub(super) const WINDOWS_PATH: &str = "PUNCTUAL_WINE_AS_WINDOWS";

/// `NtDelayExecution(Alertable, DelayInterval)`: a negative interval is relative, in 100 ns.
type DelayFn = unsafe extern "system" fn(alertable: u8, interval: *const i64) -> i32;

/// `NtDelayExecution` when running under Wine, else `None`; looked up once.
fn wine_delay() -> Option<DelayFn> {
    static DELAY: OnceLock<Option<DelayFn>> = OnceLock::new();
    *DELAY.get_or_init(|| {
        let name: Vec<u16> = "ntdll.dll\0".encode_utf16().collect();
        // SAFETY: `name` is a NUL-terminated UTF-16 string that outlives the call; ntdll is
        // loaded in every process, and a module handle needs no release (GetModuleHandleW).
        let ntdll = unsafe { GetModuleHandleW(name.as_ptr()) };
        if ntdll.is_null() {
            return None;
        }
        // SAFETY: `ntdll` is a loaded module; the names are NUL-terminated ASCII
        // (GetProcAddress). The export's presence is all that is asked of it.
        unsafe { GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()) }?;
        if std::env::var_os(WINDOWS_PATH).is_some_and(|v| v == "1") {
            return None;
        }
        // SAFETY: as above.
        let delay = unsafe { GetProcAddress(ntdll, c"NtDelayExecution".as_ptr().cast()) }?;
        // SAFETY: ntdll's `NtDelayExecution` has this signature (BOOLEAN, PLARGE_INTEGER) ->
        // NTSTATUS, in the system calling convention.
        Some(unsafe { std::mem::transmute::<unsafe extern "system" fn() -> isize, DelayFn>(delay) })
    })
}

/// Whether native waits use `NtDelayExecution` (under Wine).
pub(super) fn delays() -> bool {
    wine_delay().is_some()
}

/// Waits `nanos`, rounded up to 100 ns, with `NtDelayExecution`; false when not under Wine
/// (nothing waited). The caller re-checks its deadline, as after every native wait.
pub(super) fn delay(nanos: u64) -> bool {
    let Some(delay) = wine_delay() else {
        return false;
    };
    let interval = -i64::try_from(nanos.div_ceil(100)).unwrap_or(i64::MAX);
    // SAFETY: `interval` outlives the call; not alertable, so no APC runs inside it.
    unsafe { delay(0, &interval) };
    true
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// Under Wine with `PUNCTUAL_WINE_AS_WINDOWS=1` (scripts/test runs the Windows suites so
    /// too), native waits take Windows' own path, the high-resolution waitable timer, and
    /// never the Wine one.
    #[test]
    fn under_wine_as_windows_native_waits_take_the_waitable_timer() {
        if std::env::var_os("PUNCTUAL_UNDER_WINE").is_none() || std::env::var_os(WINDOWS_PATH).is_none() {
            eprintln!("not run by .ci/wine/run with {WINDOWS_PATH}=1: Windows' path is checked on Windows");
            return;
        }
        assert!(!delays(), "{WINDOWS_PATH}=1, but native waits still take NtDelayExecution");
        let timer = <super::super::Os as crate::Platform>::native_timer();
        assert_eq!(timer.mechanism, "high-resolution waitable timer", "{timer:?}");
        assert!(!delay(1_000), "the Wine path waited with {WINDOWS_PATH}=1");
    }

    /// `.ci/wine/run` sets `PUNCTUAL_UNDER_WINE`: there the Wine path must be the one taken,
    /// and a wait through it, re-checked as every native wait is, never ends early.
    #[test]
    fn under_wine_native_waits_take_nt_delay_execution() {
        if std::env::var_os("PUNCTUAL_UNDER_WINE").is_none() || std::env::var_os(WINDOWS_PATH).is_some() {
            eprintln!("not run by .ci/wine/run without {WINDOWS_PATH}: the Wine path is not checked here");
            return;
        }
        assert!(delays(), "under Wine, but ntdll's wine_get_version or NtDelayExecution was not found");
        for micros in [0, 1, 50, 500, 2_000] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            loop {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                assert!(delay(crate::nanos_until(deadline, now)));
            }
        }
    }
}
