//! The interruptible wait on macOS: one `kqueue(2)` holding an `EVFILT_USER` event that
//! [`Waiter::notify`] triggers and, during a timed wait, a one-shot `EVFILT_TIMER` whose
//! deadline is absolute in `mach_absolute_time` ticks (`NOTE_MACHTIME | NOTE_ABSOLUTE`), the
//! clock of `Instant`. `NOTE_CRITICAL` asks the kernel not to coalesce it with other timers.

use std::io;
use std::time::Instant;

use super::{mach_absolute_time, nanos_to_ticks, Os};
use crate::{nanos_until, Interruptible, NativeTimer, Platform, Woken};

pub(crate) struct Waiter {
    kq: libc::c_int,
}

const NOTIFY_IDENT: usize = 1;
const TIMER_IDENT: usize = 2;

fn event(ident: usize, filter: i16, flags: u16, fflags: u32, data: isize) -> libc::kevent {
    libc::kevent {
        ident,
        filter,
        flags,
        fflags,
        data,
        udata: std::ptr::null_mut(),
    }
}

impl Waiter {
    /// Applies `changes` and, when `events` is not empty, waits for some; retried on EINTR.
    fn kevent(&self, changes: &[libc::kevent], events: &mut [libc::kevent]) -> io::Result<usize> {
        loop {
            // SAFETY: `self.kq` is a live kqueue; both slices are valid for their lengths
            // and the lengths fit in c_int; a null timeout blocks until an event
            // (kevent(2)).
            let rc = unsafe {
                libc::kevent(
                    self.kq,
                    changes.as_ptr(),
                    changes.len() as libc::c_int,
                    events.as_mut_ptr(),
                    events.len() as libc::c_int,
                    std::ptr::null(),
                )
            };
            if rc >= 0 {
                return Ok(rc as usize);
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

impl Interruptible for Waiter {
    fn new() -> io::Result<Waiter> {
        // SAFETY: kqueue takes no arguments and returns a new descriptor or -1 (kqueue(2)).
        let kq = unsafe { libc::kqueue() };
        if kq < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `kq` is the descriptor just created; FD_CLOEXEC keeps it from leaking
        // into programs this process executes (fcntl(2)).
        unsafe { libc::fcntl(kq, libc::F_SETFD, libc::FD_CLOEXEC) };
        let waiter = Waiter { kq };
        let user = event(
            NOTIFY_IDENT,
            libc::EVFILT_USER,
            libc::EV_ADD | libc::EV_CLEAR,
            0,
            0,
        );
        waiter.kevent(&[user], &mut [])?;
        Ok(waiter)
    }

    fn wait(&self, deadline: Option<Instant>) -> Woken {
        let timer = deadline.map(|deadline| {
            let now = Instant::now();
            // SAFETY: mach_absolute_time has no preconditions.
            let start = unsafe { mach_absolute_time() };
            let target = start.saturating_add(nanos_to_ticks(nanos_until(deadline, now)));
            event(
                TIMER_IDENT,
                libc::EVFILT_TIMER,
                libc::EV_ADD | libc::EV_ONESHOT,
                libc::NOTE_MACHTIME | libc::NOTE_ABSOLUTE | libc::NOTE_CRITICAL,
                isize::try_from(target).unwrap_or(isize::MAX),
            )
        });
        let changes = timer.as_slice();
        let mut events = [event(0, 0, 0, 0, 0), event(0, 0, 0, 0, 0)];
        let n = match self.kevent(changes, &mut events) {
            Ok(n) => n,
            Err(_) => {
                // Not reachable with a live kqueue; sleep the plain way rather than spin.
                if let Some(deadline) = deadline {
                    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
                }
                return Woken::Other;
            }
        };
        let fired = |filter| events[..n].iter().any(|e| e.filter == filter);
        if fired(libc::EVFILT_TIMER) {
            return Woken::TimedOut;
        }
        if timer.is_some() {
            // Cut short: drop the armed timer so it cannot end a later wait early. ENOENT
            // (it fired meanwhile) is fine.
            let delete = event(TIMER_IDENT, libc::EVFILT_TIMER, libc::EV_DELETE, 0, 0);
            let _ = self.kevent(&[delete], &mut []);
        }
        Woken::Other
    }

    fn notify(&self) {
        let trigger = event(NOTIFY_IDENT, libc::EVFILT_USER, 0, libc::NOTE_TRIGGER, 0);
        let _ = self.kevent(&[trigger], &mut []);
    }

    fn timer(&self) -> NativeTimer {
        NativeTimer {
            mechanism: "kqueue EVFILT_TIMER (NOTE_MACHTIME | NOTE_ABSOLUTE) + EVFILT_USER",
            ..Os::native_timer()
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        // SAFETY: `kq` was opened by this struct and is closed exactly once (close(2)).
        unsafe { libc::close(self.kq) };
    }
}
