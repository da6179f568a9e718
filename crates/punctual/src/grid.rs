//! The arithmetic of a fixed grid, shared by the blocking [`Ticker`](crate::Ticker), the
//! async [`Interval`](crate::future::Interval), and anyone who waits their own way: which
//! grid point the next tick waits for, and what a late tick does to the grid, in integer
//! nanoseconds from an anchor.

use std::time::{Duration, Instant};

use crate::{Error, MissedTickPolicy};

/// A fixed grid without a way to wait: tick `k` is due a whole number of periods after an
/// anchor, computed in integer nanoseconds, and a [`MissedTickPolicy`] decides what happens
/// to overdue ticks. [`Ticker`](crate::Ticker) is a `Grid` with a [`Sleeper`](crate::Sleeper);
/// use a `Grid` alone to keep the same grid while waiting some other way.
///
/// Each tick is two calls: [`Grid::due`] with a clock reading taken as the wait begins says
/// which grid point to wait for, and [`Grid::advance`] with the reading that ended the wait
/// moves the grid on. [`MissedTickPolicy::Delay`] re-anchors the grid on a late tick.
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
/// use punctual::Grid;
///
/// let period = Duration::from_millis(1);
/// let first = Instant::now() - period * 3 - period / 2; // three and a half periods ago
/// let mut grid = Grid::new(first, period)?;
/// let due = grid.due(Instant::now());
/// // The default policy skips overdue grid points: 0 to 3 have passed.
/// assert_eq!((due.index(), due.missed()), (4, 4));
/// assert_eq!(due.deadline(), Some(first + period * 4));
/// grid.advance(&due, due.deadline().unwrap());
/// assert_eq!(grid.next_index(), 5);
/// # Ok::<(), punctual::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Grid {
    policy: MissedTickPolicy,
    period: Duration,
    anchor: Instant,
    anchor_index: u64,
    next: u64,
    missed: u64,
}

/// The tick the next wait is for, decided by [`Grid::due`] from one clock reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    pub(crate) index: u64,
    /// `None` when the grid point is past the end of `Instant`: it is never reached.
    pub(crate) deadline: Option<Instant>,
    pub(crate) missed: u64,
    overdue: bool,
}

impl Due {
    /// The tick's number on the grid.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// When it is due, or `None` when that is past the end of `Instant` (never reached).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// How many grid points the policy let pass without a tick just before this one.
    pub fn missed(&self) -> u64 {
        self.missed
    }
}

impl Grid {
    /// A grid whose tick 0 is due at `first`.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn new(first: Instant, period: Duration) -> Result<Grid, Error> {
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
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn starting_in_one_period(period: Duration) -> Result<Grid, Error> {
        let now = Instant::now();
        Grid::new(now.checked_add(period).unwrap_or(now), period)
    }

    /// Handles overdue ticks by `policy` from now on ([`MissedTickPolicy::Skip`] by default).
    pub fn set_policy(&mut self, policy: MissedTickPolicy) {
        self.policy = policy;
    }

    /// The policy for overdue ticks.
    pub fn policy(&self) -> MissedTickPolicy {
        self.policy
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// The index of the tick the next [`Grid::due`] will name, unless it is overdue.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// All grid points missed so far.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// When tick `index` is due, or `None` before the anchor or past the end of `Instant`.
    pub fn deadline_of(&self, index: u64) -> Option<Instant> {
        let steps = index.checked_sub(self.anchor_index)?;
        let offset_nanos = self.period.as_nanos().checked_mul(u128::from(steps))?;
        let secs = u64::try_from(offset_nanos / 1_000_000_000).ok()?;
        let offset = Duration::new(secs, (offset_nanos % 1_000_000_000) as u32);
        self.anchor.checked_add(offset)
    }

    /// The tick to wait for, given the clock reading `now` taken as the wait began.
    ///
    /// A tick is overdue when its deadline is before `now`; the policy decides what then.
    pub fn due(&self, now: Instant) -> Due {
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
    pub fn advance(&mut self, due: &Due, woke: Instant) {
        if due.overdue && self.policy == MissedTickPolicy::Delay {
            self.anchor = woke;
            self.anchor_index = due.index;
        }
        self.next = due.index.saturating_add(1);
        self.missed = self.missed.saturating_add(due.missed);
    }
}
