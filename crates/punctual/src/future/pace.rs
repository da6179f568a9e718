//! When the driver thread looks at its timers next: at the earliest fire time, except while
//! timers fall due densely, when it gathers them for a short while and fires them together.
//!
//! # Why gather
//!
//! Each wait of the driver thread (a `futex` wait and the wake-up that ends it) costs that
//! thread a fixed amount of CPU whatever its length, as much as firing tens of timers, and
//! ends some tens of microseconds after it began at the soonest. While deadlines come a
//! microsecond apart, waiting for each next timer would make that fixed cost most of the
//! driver's CPU per timer (`docs/driver-cost.md`). So once a wake-up has fired
//! [`DENSE_TIMERS`] or more, the driver does not wake again before [`GATHER`] after it: whatever falls due meanwhile fires in the next batch,
//! at most [`GATHER`] late (plus the wait's own oversleep), and a registration meanwhile
//! does not interrupt the wait. A timer never fires early for it, and timers that come
//! sparsely (fewer than [`DENSE_TIMERS`] a wake-up) are fired at their fire time as before.
//!
//! A driver with a spin tail never gathers: its sleeps are fired a margin early so that
//! they can spin to the deadline, and a gathered fire would eat the margin.

use std::time::Duration;

use super::driver::nanos;

/// Timers one wake-up of the driver must fire for the next to be gathered.
pub(crate) const DENSE_TIMERS: usize = 32;
/// How long after a dense wake-up the driver waits before the next.
pub(crate) const GATHER: Duration = Duration::from_micros(250);

/// What the driver thread does after a pass over its timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Look again at once: the pass fired timers, and more may be due.
    Now,
    /// Wait until this fire time (in the driver's nanoseconds); a timer registered earlier
    /// than it cuts the wait short.
    At(u64),
    /// Wait until then, gathering: timers registered meanwhile are left for then.
    Gather(u64),
    /// No timer pending: wait for a registration.
    Idle,
}

/// The driver thread's record of its wake-ups, for [`Pace::after_pass`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pace {
    gathers: bool,
    /// When the last wait ended, in the driver's nanoseconds.
    woke_ns: u64,
    /// Timers fired since then.
    fired_since_wait: usize,
}

impl Pace {
    /// A pace that gathers dense timers when `gathers` (a driver without a spin tail).
    pub(crate) fn new(gathers: bool) -> Pace {
        Pace {
            gathers,
            woke_ns: 0,
            fired_since_wait: 0,
        }
    }

    /// After a pass at `now_ns` that fired `fired` timers and left `next` the earliest fire
    /// time pending (after `now_ns` when `fired` is 0): what to do next.
    pub(crate) fn after_pass(&mut self, now_ns: u64, fired: usize, next: Option<u64>) -> Next {
        self.fired_since_wait = self.fired_since_wait.saturating_add(fired);
        if fired > 0 {
            return Next::Now;
        }
        let Some(next_ns) = next else {
            return Next::Idle;
        };
        let gather_until = self.woke_ns.saturating_add(nanos(GATHER));
        if self.gathers
            && self.fired_since_wait >= DENSE_TIMERS
            && now_ns < gather_until
            && next_ns < gather_until
        {
            Next::Gather(gather_until)
        } else {
            Next::At(next_ns)
        }
    }

    /// A wait ended at `now_ns`.
    pub(crate) fn woke(&mut self, now_ns: u64) {
        self.woke_ns = now_ns;
        self.fired_since_wait = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GATHER_NS: u64 = GATHER.as_nanos() as u64;

    /// A wake-up that fired a dense batch: the next timer, a microsecond away, is gathered
    /// until `GATHER` after the wake-up, never sooner; and the plan is never earlier than
    /// the timer itself.
    #[test]
    fn after_a_dense_wake_up_the_next_timers_are_gathered() {
        let mut pace = Pace::new(true);
        pace.woke(1_000_000);
        assert_eq!(
            pace.after_pass(1_000_100, DENSE_TIMERS, Some(1_000_100)),
            Next::Now
        );
        assert_eq!(
            pace.after_pass(1_000_200, 0, Some(1_001_200)),
            Next::Gather(1_000_000 + GATHER_NS)
        );
        // A timer due after the gathering ends is waited for as usual.
        assert_eq!(
            pace.after_pass(1_000_200, 0, Some(1_000_000 + GATHER_NS + 1)),
            Next::At(1_000_000 + GATHER_NS + 1)
        );
        // Once the gathering time has passed, the driver looks at its next fire time again.
        assert_eq!(
            pace.after_pass(1_000_000 + GATHER_NS, 0, Some(1_000_000 + GATHER_NS + 5)),
            Next::At(1_000_000 + GATHER_NS + 5)
        );
    }

    /// Sparse timers, a spin tail, and a new wait: each fires at its own fire time.
    #[test]
    fn sparse_timers_and_spin_tails_are_never_gathered() {
        let mut sparse = Pace::new(true);
        sparse.woke(5_000);
        assert_eq!(sparse.after_pass(5_100, DENSE_TIMERS - 1, None), Next::Now);
        assert_eq!(sparse.after_pass(5_200, 0, Some(6_000)), Next::At(6_000));
        let mut tail = Pace::new(false);
        tail.woke(5_000);
        assert_eq!(tail.after_pass(5_100, 1_000, None), Next::Now);
        assert_eq!(tail.after_pass(5_200, 0, Some(6_000)), Next::At(6_000));
        // A wait starts the count again.
        let mut dense = Pace::new(true);
        dense.woke(5_000);
        dense.after_pass(5_100, DENSE_TIMERS, None);
        dense.woke(7_000);
        assert_eq!(dense.after_pass(7_100, 0, Some(7_200)), Next::At(7_200));
        assert_eq!(dense.after_pass(7_100, 0, None), Next::Idle);
    }

    /// Near the end of the driver's clock nothing overflows into an earlier plan.
    #[test]
    fn gathering_saturates_at_the_end_of_the_clock() {
        let mut pace = Pace::new(true);
        pace.woke(u64::MAX - 10);
        pace.after_pass(u64::MAX - 9, usize::MAX, None);
        assert_eq!(
            pace.after_pass(u64::MAX - 8, 0, Some(u64::MAX - 2)),
            Next::Gather(u64::MAX)
        );
    }
}
