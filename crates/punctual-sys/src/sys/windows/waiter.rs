//! The interruptible wait on Windows: a waitable timer (high resolution where Windows
//! offers it, as for the native sleep) and an auto-reset event that [`Waiter::notify`] sets,
//! waited for together with `WaitForMultipleObjects`.

use std::io;
use std::time::Instant;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, WAIT_OBJECT_0, WAIT_TIMEOUT};
use windows_sys::Win32::System::Threading::{
    CancelWaitableTimer, CreateEventW, SetEvent, WaitForMultipleObjects, WaitForSingleObject,
    INFINITE,
};

use super::ThreadTimer;
use crate::{nanos_until, Interruptible, NativeTimer, Woken};

pub(crate) struct Waiter {
    event: HANDLE,
    /// `None` when no waitable timer could be made: waits then time out in whole
    /// milliseconds, which [`Interruptible::timer`] reports.
    timer: Option<ThreadTimer>,
}

// SAFETY: the event is a kernel object handle, valid in every thread of the process;
// SetEvent may be called from any thread, and only the driver thread waits (CreateEventW).
unsafe impl Send for Waiter {}
// SAFETY: as above.
unsafe impl Sync for Waiter {}

impl Waiter {
    /// Waits on the event alone, for at most `millis` (or [`INFINITE`]).
    fn wait_event(&self, millis: u32) -> Woken {
        // SAFETY: `self.event` is a live event handle (WaitForSingleObject).
        match unsafe { WaitForSingleObject(self.event, millis) } {
            WAIT_TIMEOUT => Woken::TimedOut,
            _ => Woken::Other,
        }
    }
}

impl Interruptible for Waiter {
    fn new() -> io::Result<Waiter> {
        // SAFETY: null attributes and name make an unnamed auto-reset event, initially not
        // signalled, with default security (CreateEventW).
        let event = unsafe { CreateEventW(std::ptr::null(), 0, 0, std::ptr::null()) };
        if event.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(Waiter {
            event,
            timer: ThreadTimer::create(),
        })
    }

    fn wait(&self, deadline: Option<Instant>) -> Woken {
        let Some(deadline) = deadline else {
            return self.wait_event(INFINITE);
        };
        let nanos = nanos_until(deadline, Instant::now());
        let Some(timer) = self.timer.as_ref().filter(|t| t.set(nanos)) else {
            let millis = u32::try_from(nanos.div_ceil(1_000_000)).unwrap_or(INFINITE - 1);
            return self.wait_event(millis.min(INFINITE - 1));
        };
        let handles = [self.event, timer.handle];
        // SAFETY: both handles are live and waitable; the array outlives the call; FALSE
        // waits for either (WaitForMultipleObjects).
        let rc = timer
            .with_period(|| unsafe { WaitForMultipleObjects(2, handles.as_ptr(), 0, INFINITE) });
        if rc == WAIT_OBJECT_0 + 1 {
            return Woken::TimedOut;
        }
        // SAFETY: `timer.handle` is a live timer; cancelling an armed or fired timer is
        // allowed and keeps it from ending the next wait early (CancelWaitableTimer).
        unsafe { CancelWaitableTimer(timer.handle) };
        Woken::Other
    }

    fn notify(&self) {
        // SAFETY: `self.event` is a live event handle (SetEvent).
        unsafe { SetEvent(self.event) };
    }

    fn timer(&self) -> NativeTimer {
        let (mechanism, high_resolution, degraded) = match &self.timer {
            Some(t) if t.high_resolution => (
                "high-resolution waitable timer + event (WaitForMultipleObjects)",
                true,
                None,
            ),
            Some(_) => (
                "waitable timer with timeBeginPeriod(1) + event (WaitForMultipleObjects)",
                false,
                Some("CREATE_WAITABLE_TIMER_HIGH_RESOLUTION refused (needs Windows 10 1803 or later): driver waits are quantised to about 1 ms".to_string()),
            ),
            None => (
                "event wait with a millisecond timeout",
                false,
                Some("no waitable timer could be created: driver waits are rounded up to whole milliseconds".to_string()),
            ),
        };
        NativeTimer {
            mechanism,
            high_resolution,
            resolution: None,
            degraded,
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        // SAFETY: the event was created by this struct and is closed exactly once.
        unsafe { CloseHandle(self.event) };
    }
}
