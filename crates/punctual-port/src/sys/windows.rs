//! Windows: the std handles as files, and a doorbell made of an auto-reset event and a
//! high-resolution waitable timer, waited on together with `WaitForMultipleObjects`.
//!
//! A `File` over a pipe handle reads and writes with `ReadFile`/`WriteFile`: binary, with
//! no C runtime text mode to translate `\n`, which is what nanosleep's `_setmode` buys in C.
//! Condition variables time out in whole milliseconds here, hence the timer.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::windows::io::AsHandle;
use std::time::Instant;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::Threading::{
    CreateEventW, CreateWaitableTimerExW, SetEvent, SetWaitableTimer, WaitForMultipleObjects,
    WaitForSingleObject, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, INFINITE, TIMER_ALL_ACCESS,
};

use super::{Bell, Platform};

pub(crate) struct Os;

impl Platform for Os {
    fn prepare_process() {}

    fn input() -> io::Result<Box<dyn Read + Send>> {
        let handle = io::stdin().as_handle().try_clone_to_owned()?;
        Ok(Box::new(File::from(handle)))
    }

    fn output() -> io::Result<Box<dyn Write + Send>> {
        let handle = io::stdout().as_handle().try_clone_to_owned()?;
        Ok(Box::new(File::from(handle)))
    }

    fn exit_when_output_closed() -> bool {
        false
    }
}

/// An auto-reset event (the ring) and a waitable timer (the timeout).
pub(crate) struct Doorbell {
    event: HANDLE,
    timer: HANDLE,
}

// SAFETY: both are kernel object handles, which any thread of the process may use
// (SetEvent and WaitForMultipleObjects are thread-safe); only the waiting thread sets the
// timer.
unsafe impl Send for Doorbell {}
// SAFETY: as above; `ring` only calls SetEvent.
unsafe impl Sync for Doorbell {}

fn timer(flags: u32) -> HANDLE {
    // SAFETY: null attributes and name make an unnamed timer with default security; the
    // flags and access mask are documented values (CreateWaitableTimerExW).
    unsafe { CreateWaitableTimerExW(std::ptr::null(), std::ptr::null(), flags, TIMER_ALL_ACCESS) }
}

impl Bell for Doorbell {
    fn new() -> io::Result<Doorbell> {
        // SAFETY: null attributes and name make an unnamed auto-reset event, initially
        // unsignalled (CreateEventW).
        let event = unsafe { CreateEventW(std::ptr::null(), 0, 0, std::ptr::null()) };
        if event.is_null() {
            return Err(io::Error::last_os_error());
        }
        // Before Windows 10 1803 the flag is refused; a normal timer still works, coarser.
        let mut timer_handle = timer(CREATE_WAITABLE_TIMER_HIGH_RESOLUTION);
        if timer_handle.is_null() {
            timer_handle = timer(0);
        }
        if timer_handle.is_null() {
            let error = io::Error::last_os_error();
            // SAFETY: `event` was created above and is closed once, here.
            unsafe { CloseHandle(event) };
            return Err(error);
        }
        Ok(Doorbell {
            event,
            timer: timer_handle,
        })
    }

    fn ring(&self) {
        // SAFETY: `self.event` is a live event handle owned by this struct (SetEvent).
        unsafe { SetEvent(self.event) };
    }

    fn wait_until(&self, deadline: Option<Instant>) {
        let Some(deadline) = deadline else {
            // SAFETY: `self.event` is a live, waitable handle (WaitForSingleObject).
            unsafe { WaitForSingleObject(self.event, INFINITE) };
            return;
        };
        let nanos = deadline
            .saturating_duration_since(Instant::now())
            .as_nanos();
        if nanos == 0 {
            return;
        }
        // Relative due times are negative, in 100 ns units; round up so as not to be early.
        let due = -i64::try_from(nanos.div_ceil(100)).unwrap_or(i64::MAX);
        // SAFETY: `self.timer` is a live timer handle; `due` outlives the call; no
        // completion routine is registered (SetWaitableTimer).
        let set = unsafe { SetWaitableTimer(self.timer, &due, 0, None, std::ptr::null(), 0) };
        if set == 0 {
            return;
        }
        let handles = [self.event, self.timer];
        // SAFETY: `handles` holds two live, waitable handles and outlives the call;
        // bWaitAll = FALSE returns when either is signalled (WaitForMultipleObjects).
        unsafe { WaitForMultipleObjects(2, handles.as_ptr(), 0, INFINITE) };
    }
}

impl Drop for Doorbell {
    fn drop(&mut self) {
        // SAFETY: both handles were created by this struct and are closed exactly once.
        unsafe {
            CloseHandle(self.event);
            CloseHandle(self.timer);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_out_at_or_after_the_deadline_unless_rung() {
        let bell = Arc::new(Doorbell::new().unwrap());
        for micros in [1, 300, 2_000] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            while Instant::now() < deadline {
                bell.wait_until(Some(deadline));
            }
        }
        let ringer = Arc::clone(&bell);
        let handle = thread::spawn(move || ringer.ring());
        bell.wait_until(None);
        handle.join().unwrap();
    }
}
