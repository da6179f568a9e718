//! Windows: a waitable timer created once per thread with
//! `CREATE_WAITABLE_TIMER_HIGH_RESOLUTION` (Windows 10 1803 and later), closed when the
//! thread ends. Where that flag is refused, a normal waitable timer with `timeBeginPeriod(1)`
//! held for the length of each wait. `Sleep(0)` is never used as a wait: it only yields.
//!
//! The due time is relative (negative, in 100 ns units) and rounded up; the caller re-checks
//! `Instant` (QueryPerformanceCounter) afterwards, since the timer runs on the interrupt
//! clock and may fire a little before a QPC deadline.
//!
//! Under Wine the timer goes through wineserver, whose timeouts are whole milliseconds (a
//! 100 µs wait there takes more than a millisecond); a non-alertable
//! `NtDelayExecution` is Wine's own `select()` with a microsecond timeout. Under Wine
//! (ntdll exports `wine_get_version`) native waits use that (`wine.rs`).
//!
//! The interruptible wait (`waiter.rs`) pairs such a timer with an event. A `File` over a
//! std handle reads and writes with `ReadFile`/`WriteFile`: binary, with no C runtime text
//! mode to translate `\n`.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::windows::io::AsHandle;
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{CloseHandle, BOOL, FILETIME, HANDLE};
use windows_sys::Win32::Media::{timeBeginPeriod, timeEndPeriod};
use windows_sys::Win32::System::SystemInformation::GetTickCount64;
use windows_sys::Win32::System::Threading::{
    CreateWaitableTimerExW, GetCurrentProcess, GetCurrentThread, GetProcessTimes, GetThreadTimes,
    SetWaitableTimer, Sleep, WaitForSingleObject, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
    INFINITE, TIMER_ALL_ACCESS,
};

use crate::{nanos_until, CoarseClock, NativeTimer, Platform};

mod waiter;
mod wine;

pub(crate) use waiter::Waiter;

pub(crate) struct Os;

/// A waitable timer, owned by one thread (or by a [`Waiter`]).
struct ThreadTimer {
    handle: HANDLE,
    high_resolution: bool,
}

// SAFETY: a waitable timer handle is a kernel object handle, valid in every thread of the
// process (CreateWaitableTimerExW); only the owner sets and waits on it.
unsafe impl Send for ThreadTimer {}
// SAFETY: as above; the shared methods only pass the handle to thread-safe kernel calls.
unsafe impl Sync for ThreadTimer {}

impl ThreadTimer {
    /// The best timer this Windows offers, or `None` when it cannot create any.
    fn create() -> Option<ThreadTimer> {
        Self::with_flags(CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, true)
            .or_else(|| Self::with_flags(0, false))
    }

    fn with_flags(flags: u32, high_resolution: bool) -> Option<ThreadTimer> {
        // SAFETY: null attributes and name make an unnamed timer with default security;
        // the flags and access mask are documented values (CreateWaitableTimerExW).
        let handle = unsafe {
            CreateWaitableTimerExW(std::ptr::null(), std::ptr::null(), flags, TIMER_ALL_ACCESS)
        };
        (!handle.is_null()).then_some(ThreadTimer {
            handle,
            high_resolution,
        })
    }

    /// Arms the timer to fire once, `nanos` from now rounded up to 100 ns (a negative due
    /// time is relative). Returns false when the timer refused.
    fn set(&self, nanos: u64) -> bool {
        let due = -i64::try_from(nanos.div_ceil(100)).unwrap_or(i64::MAX);
        // SAFETY: `self.handle` is a live timer handle; `due` outlives the call; no
        // completion routine is registered (SetWaitableTimer).
        unsafe { SetWaitableTimer(self.handle, &due, 0, None, std::ptr::null(), 0) != 0 }
    }

    /// Runs `wait` with the 1 ms system timer resolution held if this timer needs it.
    fn with_period<R>(&self, wait: impl FnOnce() -> R) -> R {
        if !self.high_resolution {
            // SAFETY: timeBeginPeriod has no memory preconditions; it is paired with the
            // timeEndPeriod below.
            unsafe { timeBeginPeriod(1) };
        }
        let result = wait();
        if !self.high_resolution {
            // SAFETY: pairs the timeBeginPeriod(1) above.
            unsafe { timeEndPeriod(1) };
        }
        result
    }

    /// One wait of `nanos`, rounded up to 100 ns. Returns false when the timer failed.
    fn wait(&self, nanos: u64) -> bool {
        self.with_period(|| {
            self.set(nanos)
                // SAFETY: `self.handle` is a live, waitable handle (WaitForSingleObject).
                && unsafe { WaitForSingleObject(self.handle, INFINITE) } == 0
        })
    }
}

impl Drop for ThreadTimer {
    fn drop(&mut self) {
        // SAFETY: the handle was created by this struct and is closed exactly once.
        unsafe { CloseHandle(self.handle) };
    }
}

thread_local! {
    static TIMER: Option<ThreadTimer> = ThreadTimer::create();
}

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_millis(1);

    fn wait_until(deadline: Instant, now: Instant) {
        let nanos = nanos_until(deadline, now);
        if wine::delay(nanos) {
            return;
        }
        let waited = TIMER
            .try_with(|timer| timer.as_ref().is_some_and(|t| t.wait(nanos)))
            .unwrap_or(false);
        if !waited {
            std::thread::sleep(Duration::from_nanos(nanos));
        }
    }

    fn native_timer() -> NativeTimer {
        if wine::delays() {
            return NativeTimer {
                mechanism: wine::MECHANISM,
                high_resolution: true,
                resolution: None,
                degraded: None,
            };
        }
        let kind = TIMER
            .try_with(|timer| timer.as_ref().map(|t| t.high_resolution))
            .ok()
            .flatten();
        let (mechanism, degraded) = match kind {
            Some(true) => ("high-resolution waitable timer", None),
            Some(false) => (
                "waitable timer with timeBeginPeriod(1)",
                Some("CREATE_WAITABLE_TIMER_HIGH_RESOLUTION refused (needs Windows 10 1803 or later): waits are quantised to about 1 ms".to_string()),
            ),
            None => (
                "std::thread::sleep",
                Some("no waitable timer could be created: falling back to std::thread::sleep".to_string()),
            ),
        };
        NativeTimer {
            mechanism,
            high_resolution: kind == Some(true),
            resolution: None,
            degraded,
        }
    }

    fn thread_cpu_time() -> Option<Duration> {
        // SAFETY: GetCurrentThread has no preconditions; its pseudo-handle is always valid.
        cpu_time(GetThreadTimes, unsafe { GetCurrentThread() })
    }

    fn process_cpu_time() -> Option<Duration> {
        // SAFETY: GetCurrentProcess has no preconditions; its pseudo-handle is always valid.
        cpu_time(GetProcessTimes, unsafe { GetCurrentProcess() })
    }

    fn coarse_clock() -> Option<CoarseClock> {
        Some(CoarseClock {
            name: "GetTickCount64",
            resolution: None,
            now: coarse_now,
        })
    }

    fn raw_stdin() -> io::Result<Box<dyn Read + Send>> {
        let handle = io::stdin().as_handle().try_clone_to_owned()?;
        Ok(Box::new(File::from(handle)))
    }

    fn raw_stdout() -> io::Result<Box<dyn Write + Send>> {
        let handle = io::stdout().as_handle().try_clone_to_owned()?;
        Ok(Box::new(File::from(handle)))
    }

    const PLAIN_SLEEP: &'static str = "Win32 Sleep()";

    fn plain_sleep(ms: u32) {
        // SAFETY: Sleep takes a plain count of milliseconds and has no failure mode.
        unsafe { Sleep(ms) };
    }
}

fn coarse_now() -> Duration {
    // SAFETY: GetTickCount64 has no preconditions.
    Duration::from_millis(unsafe { GetTickCount64() })
}

/// `GetThreadTimes` and `GetProcessTimes` have one signature.
type TimesFn = unsafe extern "system" fn(
    HANDLE,
    *mut FILETIME,
    *mut FILETIME,
    *mut FILETIME,
    *mut FILETIME,
) -> BOOL;

/// Kernel plus user time of a thread or process, through its `Get*Times` call.
fn cpu_time(get_times: TimesFn, handle: HANDLE) -> Option<Duration> {
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: `handle` is a valid pseudo-handle of the kind `get_times` takes; four writable
    // FILETIMEs (GetThreadTimes, GetProcessTimes).
    let ok = unsafe { get_times(handle, &mut created, &mut exited, &mut kernel, &mut user) };
    let hundred_nanos =
        |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    (ok != 0).then(|| {
        Duration::from_nanos(
            hundred_nanos(kernel)
                .saturating_add(hundred_nanos(user))
                .saturating_mul(100),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback timer is what older Windows gets; check it never fires early either.
    #[test]
    fn fallback_timer_is_not_early_once_rechecked() {
        let timer = ThreadTimer::with_flags(0, false).expect("a normal waitable timer");
        for micros in [0, 1, 50, 500, 2_000] {
            let start = Instant::now();
            let deadline = start + Duration::from_micros(micros);
            while Instant::now() < deadline {
                assert!(timer.wait(nanos_until(deadline, Instant::now())));
            }
            assert!(Instant::now() >= deadline);
        }
    }
}
