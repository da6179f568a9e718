//! The two primitive waits every strategy is built from. Both end on a clock reading that is
//! at or after the deadline: that final comparison against [`Instant::now`] is what makes
//! "never early" hold whatever the OS timer did.

use std::hint;
use std::time::{Duration, Instant};

use crate::sys::{self, Platform};

/// Blocks without spinning until `Instant::now() >= deadline`; returns that reading.
pub(crate) fn native_until(deadline: Instant) -> Instant {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return now;
        }
        sys::Os::wait_until(deadline, now);
    }
}

/// Busy-waits until `Instant::now() >= deadline`; returns that reading.
pub(crate) fn spin_until(deadline: Instant) -> Instant {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return now;
        }
        hint::spin_loop();
    }
}

/// [`spin_until`], also counting the clock reads it made: a spin that took far longer than
/// its reads account for lost the CPU meanwhile.
pub(crate) fn spin_until_counted(deadline: Instant) -> (Instant, u32) {
    let mut reads: u32 = 0;
    loop {
        let now = Instant::now();
        reads = reads.saturating_add(1);
        if now >= deadline {
            return (now, reads);
        }
        hint::spin_loop();
    }
}

/// What a wait for a deadline past the end of `Instant` does: sleep natively, forever.
pub(crate) fn sleep_forever() -> ! {
    const DAY: Duration = Duration::from_secs(24 * 60 * 60);
    loop {
        if let Some(deadline) = Instant::now().checked_add(DAY) {
            native_until(deadline);
        }
    }
}
