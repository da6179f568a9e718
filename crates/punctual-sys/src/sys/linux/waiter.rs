//! The interruptible wait on Linux: `futex(2)` with `FUTEX_WAIT_BITSET`, whose timeout is
//! absolute on `CLOCK_MONOTONIC` (the clock of `Instant`), on a word that [`Waiter::notify`]
//! sets. No file descriptor is needed, and the thread's 1 ns timer slack applies to the
//! futex's hrtimer as it does to `clock_nanosleep`.

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use super::{add_nanos, monotonic_now, prepare_thread, Os};
use crate::{nanos_until, Interruptible, NativeTimer, Platform, Woken};

/// The futex word: 1 once notified, back to 0 when a wait consumes the notification.
pub(crate) struct Waiter {
    word: AtomicU32,
}

const IDLE: u32 = 0;
const NOTIFIED: u32 = 1;

impl Waiter {
    /// One `FUTEX_WAIT_BITSET` while the word is still [`IDLE`]; returns the errno (0 when
    /// woken).
    fn futex_wait(&self, target: Option<&libc::timespec>) -> i32 {
        let timeout = target.map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `word` is a live, aligned u32 for the whole call; `timeout` is null (wait
        // forever) or points at a valid timespec, read as an absolute CLOCK_MONOTONIC time
        // with FUTEX_WAIT_BITSET (futex(2)); uaddr2 is unused by this operation and val3 is
        // the match-any bitset.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.word.as_ptr(),
                libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
                IDLE,
                timeout,
                std::ptr::null::<u32>(),
                libc::FUTEX_BITSET_MATCH_ANY,
            )
        };
        if rc == 0 {
            0
        } else {
            io::Error::last_os_error().raw_os_error().unwrap_or(0)
        }
    }
}

impl Interruptible for Waiter {
    fn new() -> io::Result<Waiter> {
        Ok(Waiter {
            word: AtomicU32::new(IDLE),
        })
    }

    fn wait(&self, deadline: Option<Instant>) -> Woken {
        prepare_thread();
        // Read after `now`, so `target` is at or after `deadline` on CLOCK_MONOTONIC.
        let target = deadline.map(|deadline| {
            let now = Instant::now();
            add_nanos(monotonic_now(), nanos_until(deadline, now))
        });
        loop {
            if self.word.swap(IDLE, Ordering::Acquire) == NOTIFIED {
                return Woken::Other;
            }
            match self.futex_wait(target.as_ref()) {
                libc::ETIMEDOUT => return Woken::TimedOut,
                // Woken, or the word was already NOTIFIED: consume it at the top.
                0 | libc::EAGAIN | libc::EINTR => continue,
                // Not reachable with a valid word and timespec; sleep the plain way rather
                // than spin on a failing call.
                _ => {
                    if let Some(deadline) = deadline {
                        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
                    }
                    return Woken::Other;
                }
            }
        }
    }

    fn notify(&self) {
        if self.word.swap(NOTIFIED, Ordering::Release) == IDLE {
            // SAFETY: FUTEX_WAKE on a live, aligned u32 wakes at most one waiter; the
            // timeout, uaddr2 and val3 arguments are ignored by this operation (futex(2)).
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.word.as_ptr(),
                    libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                    1,
                )
            };
        }
    }

    fn timer(&self) -> NativeTimer {
        NativeTimer {
            mechanism: "futex(FUTEX_WAIT_BITSET) with an absolute CLOCK_MONOTONIC timeout",
            ..Os::native_timer()
        }
    }
}
