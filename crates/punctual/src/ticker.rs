use std::time::{Duration, Instant};

use crate::grid::Grid;
use crate::wait::sleep_forever;
use crate::{Error, Sleeper, Wake};

/// What a [`Ticker`] does with ticks whose deadline has already passed when
/// [`Ticker::tick`] is called (the caller's work overran, or a wake was very late).
///
/// A tick is overdue when its deadline is before the clock reading taken on entry to
/// [`Ticker::tick`]; there is no tolerance (tokio counts a tick up to 5 ms late as on time;
/// this does not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum MissedTickPolicy {
    /// Every tick fires, in order: overdue ones at once, back to back, until caught up.
    /// Nothing is counted as missed; the lateness of each tick shows the backlog.
    Burst,
    /// The default. Overdue ticks are dropped and the ticker waits for the first grid point
    /// not yet past, as cyclictest does; [`Tick::missed`] counts the dropped ones. The grid
    /// never moves.
    #[default]
    Skip,
    /// The overdue tick fires at once and the grid is re-anchored on it: later ticks are due
    /// whole periods after it. [`Tick::missed`] counts the old grid points that passed.
    Delay,
}

/// One tick of a [`Ticker`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tick {
    index: u64,
    missed: u64,
    wake: Wake,
}

impl Tick {
    pub(crate) fn new(index: u64, missed: u64, wake: Wake) -> Tick {
        Tick {
            index,
            missed,
            wake,
        }
    }

    /// The tick's number on the grid: tick `k` of an un-shifted grid is due at
    /// `first + k * period`.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// How many grid points passed without a tick just before this one (see
    /// [`MissedTickPolicy`]).
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// When the tick was due.
    pub fn deadline(&self) -> Instant {
        self.wake.deadline()
    }

    /// How late it fired.
    pub fn lateness(&self) -> Duration {
        self.wake.lateness()
    }

    /// The full report of the wait.
    pub fn wake(&self) -> Wake {
        self.wake
    }
}

/// A tick whose wait [`Ticker::tick_ahead`] ended a lead before its deadline, for a caller
/// that reads its own clock the rest of the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TickAhead {
    index: u64,
    missed: u64,
    deadline: Instant,
    early: Wake,
}

impl TickAhead {
    /// The tick's number on the grid (see [`Tick::index`]).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// How many grid points passed without a tick just before this one (see
    /// [`Tick::missed`]).
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// When the tick is due: the caller's wait ends at its first reading at or after this.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The library's part of the wait, due the lead before [`TickAhead::deadline`] (or at
    /// once, for a tick due sooner than that): its [`Wake::woke`] may be before the tick's
    /// deadline.
    pub fn early(&self) -> Wake {
        self.early
    }
}

/// A periodic waker on a fixed grid.
///
/// Tick `k` is due at `first + k * period`, computed each time in integer nanoseconds from
/// `first` (never by adding periods up), so a million ticks carry no accumulated error.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::{MissedTickPolicy, Sleeper, Ticker};
///
/// let mut ticker = Ticker::new(Duration::from_micros(500))?
///     .with_sleeper(Sleeper::hybrid())
///     .with_policy(MissedTickPolicy::Skip);
/// for _ in 0..10 {
///     let tick = ticker.tick();
///     assert!(tick.wake().woke() >= tick.deadline());
/// }
/// # Ok::<(), punctual::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Ticker {
    sleeper: Sleeper,
    grid: Grid,
}

impl Ticker {
    /// A ticker whose first tick (tick 0) is one `period` from now, waiting with a hybrid
    /// sleeper and the [`MissedTickPolicy::Skip`] policy.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn new(period: Duration) -> Result<Ticker, Error> {
        Ok(Ticker {
            sleeper: Sleeper::hybrid(),
            grid: Grid::starting_in_one_period(period)?,
        })
    }

    /// A ticker whose tick 0 is due at `first`, which may be in the past.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn starting_at(first: Instant, period: Duration) -> Result<Ticker, Error> {
        Ok(Ticker {
            sleeper: Sleeper::hybrid(),
            grid: Grid::new(first, period)?,
        })
    }

    /// Waits with `sleeper` (any strategy).
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Ticker {
        self.sleeper = sleeper;
        self
    }

    /// Handles overdue ticks by `policy`.
    pub fn with_policy(mut self, policy: MissedTickPolicy) -> Ticker {
        self.grid.set_policy(policy);
        self
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.grid.period()
    }

    /// The policy for overdue ticks.
    pub fn policy(&self) -> MissedTickPolicy {
        self.grid.policy()
    }

    /// The sleeper, with its counters and learned margin.
    pub fn sleeper(&self) -> &Sleeper {
        &self.sleeper
    }

    /// The index of the tick the next [`Ticker::tick`] will wait for, unless it is overdue.
    pub fn next_index(&self) -> u64 {
        self.grid.next_index()
    }

    /// All ticks missed so far.
    pub fn missed(&self) -> u64 {
        self.grid.missed()
    }

    /// When tick `index` is due on the grid as it stands, or `None` when that is before the
    /// grid's anchor or past the end of `Instant`.
    pub fn deadline_of(&self, index: u64) -> Option<Instant> {
        self.grid.deadline_of(index)
    }

    /// Waits for the next tick and reports it.
    ///
    /// A grid point past the end of `Instant` (some hundreds of years away) is never
    /// reached: the call sleeps natively forever, as [`crate::sleep`] does.
    pub fn tick(&mut self) -> Tick {
        let due = self.grid.due(Instant::now());
        let deadline = due.deadline.unwrap_or_else(|| sleep_forever());
        let wake = self.sleeper.sleep_until(deadline);
        self.grid.advance(&due, wake.woke());
        Tick::new(due.index, due.missed, wake)
    }

    /// Waits for the next tick as [`Ticker::tick`] does, but only until `lead` before its
    /// deadline: the one wait of the library that returns before its deadline, for a
    /// client whose way back to its caller (another language's return path, cold after the
    /// sleep) costs more than the wait's error. The client reads its own clock from here
    /// to [`TickAhead::deadline`], so that the way back runs before the deadline and the
    /// reading that ends the wait is the caller's (as [`WayBack`](crate::WayBack) learns
    /// the lead). The grid moves on as if the tick fired at its deadline, or at the wake
    /// if that was later. A native ticker's wait is the library's alone, as it spins for
    /// nothing: the lead is ignored and the wait ends at or after the deadline.
    ///
    /// A grid point past the end of `Instant` is never reached, as for [`Ticker::tick`].
    pub fn tick_ahead(&mut self, lead: Duration) -> TickAhead {
        let lead = match self.sleeper.strategy() {
            crate::Strategy::Native => Duration::ZERO,
            _ => lead,
        };
        let due = self.grid.due(Instant::now());
        let deadline = due.deadline.unwrap_or_else(|| sleep_forever());
        // A tick due sooner than the lead waits for nothing here: the client spins it all.
        let early = deadline
            .checked_sub(lead)
            .unwrap_or_else(|| deadline.min(Instant::now()));
        let wake = self.sleeper.sleep_until(early);
        self.grid.advance(&due, wake.woke().max(deadline));
        TickAhead {
            index: due.index,
            missed: due.missed,
            deadline,
            early: wake,
        }
    }
}
