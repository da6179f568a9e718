//! The arithmetic of a fixed grid, shared by the blocking [`Ticker`](crate::Ticker) and the
//! async [`Interval`](crate::future::Interval): which grid point the next tick waits for,
//! and what a late tick does to the grid, in integer nanoseconds from an anchor.

use std::time::{Duration, Instant};

use crate::{Error, MissedTickPolicy};

/// The grid as it stands: tick `anchor_index` is due at `anchor`, tick `k` a whole number of
/// periods after it. [`MissedTickPolicy::Delay`] moves both.
#[derive(Debug, Clone)]
pub(crate) struct Grid {
    policy: MissedTickPolicy,
    period: Duration,
    anchor: Instant,
    anchor_index: u64,
    next: u64,
    missed: u64,
}

/// The tick the next wait is for, decided from one clock reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Due {
    pub(crate) index: u64,
    /// `None` when the grid point is past the end of `Instant`: it is never reached.
    pub(crate) deadline: Option<Instant>,
    pub(crate) missed: u64,
    overdue: bool,
}

impl Grid {
    /// A grid whose tick 0 is due at `first`.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub(crate) fn new(first: Instant, period: Duration) -> Result<Grid, Error> {
        if period.is_zero() {
            return Err(Error::ZeroPeriod);
        }
        Ok(Grid {
            policy: MissedTickPolicy::default(),
            period,
            anchor: first,
            anchor_index: 0,
            next: 0,
            missed: 0,
        })
    }

    /// A grid whose tick 0 is one `period` from now (or now, if that overflows `Instant`).
    pub(crate) fn starting_in_one_period(period: Duration) -> Result<Grid, Error> {
        let now = Instant::now();
        Grid::new(now.checked_add(period).unwrap_or(now), period)
    }

    pub(crate) fn set_policy(&mut self, policy: MissedTickPolicy) {
        self.policy = policy;
    }

    pub(crate) fn policy(&self) -> MissedTickPolicy {
        self.policy
    }

    pub(crate) fn period(&self) -> Duration {
        self.period
    }

    pub(crate) fn next_index(&self) -> u64 {
        self.next
    }

    pub(crate) fn missed(&self) -> u64 {
        self.missed
    }

    /// When tick `index` is due, or `None` before the anchor or past the end of `Instant`.
    pub(crate) fn deadline_of(&self, index: u64) -> Option<Instant> {
        let steps = index.checked_sub(self.anchor_index)?;
        let offset_nanos = self.period.as_nanos().checked_mul(u128::from(steps))?;
        let secs = u64::try_from(offset_nanos / 1_000_000_000).ok()?;
        let offset = Duration::new(secs, (offset_nanos % 1_000_000_000) as u32);
        self.anchor.checked_add(offset)
    }

    /// The tick to wait for, given the clock reading `now` taken as the wait began.
    ///
    /// A tick is overdue when its deadline is before `now`; the policy decides what then.
    pub(crate) fn due(&self, now: Instant) -> Due {
        let mut index = self.next;
        let mut deadline = self.deadline_of(index);
        let mut missed = 0;
        let overdue = deadline.is_some_and(|due| due < now);
        if let (true, Some(due)) = (overdue, deadline) {
            let behind = (now - due).as_nanos();
            let period = self.period.as_nanos();
            match self.policy {
                MissedTickPolicy::Burst => {}
                MissedTickPolicy::Skip => {
                    missed = u64::try_from(behind.div_ceil(period)).unwrap_or(u64::MAX);
                    index = index.saturating_add(missed);
                    deadline = self.deadline_of(index);
                }
                MissedTickPolicy::Delay => {
                    missed = u64::try_from(behind / period).unwrap_or(u64::MAX);
                }
            }
        }
        Due {
            index,
            deadline,
            missed,
            overdue,
        }
    }

    /// Records that the tick `due` fired on the clock reading `woke`.
    pub(crate) fn advance(&mut self, due: &Due, woke: Instant) {
        if due.overdue && self.policy == MissedTickPolicy::Delay {
            self.anchor = woke;
            self.anchor_index = due.index;
        }
        self.next = due.index.saturating_add(1);
        self.missed = self.missed.saturating_add(due.missed);
    }
}
