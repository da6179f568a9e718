use std::time::{Duration, Instant};

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
    policy: MissedTickPolicy,
    period: Duration,
    /// Tick `anchor_index` is due at `anchor`; [`MissedTickPolicy::Delay`] moves both.
    anchor: Instant,
    anchor_index: u64,
    next: u64,
    missed: u64,
}

impl Ticker {
    /// A ticker whose first tick (tick 0) is one `period` from now, waiting with a hybrid
    /// sleeper and the [`MissedTickPolicy::Skip`] policy.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn new(period: Duration) -> Result<Ticker, Error> {
        let now = Instant::now();
        Ticker::starting_at(now.checked_add(period).unwrap_or(now), period)
    }

    /// A ticker whose tick 0 is due at `first`, which may be in the past.
    ///
    /// # Errors
    ///
    /// [`Error::ZeroPeriod`] for a zero period.
    pub fn starting_at(first: Instant, period: Duration) -> Result<Ticker, Error> {
        if period.is_zero() {
            return Err(Error::ZeroPeriod);
        }
        Ok(Ticker {
            sleeper: Sleeper::hybrid(),
            policy: MissedTickPolicy::default(),
            period,
            anchor: first,
            anchor_index: 0,
            next: 0,
            missed: 0,
        })
    }

    /// Waits with `sleeper` (any strategy).
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Ticker {
        self.sleeper = sleeper;
        self
    }

    /// Handles overdue ticks by `policy`.
    pub fn with_policy(mut self, policy: MissedTickPolicy) -> Ticker {
        self.policy = policy;
        self
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// The policy for overdue ticks.
    pub fn policy(&self) -> MissedTickPolicy {
        self.policy
    }

    /// The sleeper, with its counters and learned margin.
    pub fn sleeper(&self) -> &Sleeper {
        &self.sleeper
    }

    /// The index of the tick the next [`Ticker::tick`] will wait for, unless it is overdue.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// All ticks missed so far.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// When tick `index` is due on the grid as it stands, or `None` when that is before the
    /// grid's anchor or past the end of `Instant`.
    pub fn deadline_of(&self, index: u64) -> Option<Instant> {
        let steps = index.checked_sub(self.anchor_index)?;
        let offset_nanos = self.period.as_nanos().checked_mul(u128::from(steps))?;
        let secs = u64::try_from(offset_nanos / 1_000_000_000).ok()?;
        let offset = Duration::new(secs, (offset_nanos % 1_000_000_000) as u32);
        self.anchor.checked_add(offset)
    }

    /// Waits for the next tick and reports it.
    ///
    /// A grid point past the end of `Instant` (some hundreds of years away) is never
    /// reached: the call sleeps natively forever, as [`crate::sleep`] does.
    pub fn tick(&mut self) -> Tick {
        let now = Instant::now();
        let mut index = self.next;
        let mut due = self.deadline_or_forever(index);
        let mut missed = 0;
        let overdue = due < now;
        if overdue {
            let behind = (now - due).as_nanos();
            let period = self.period.as_nanos();
            match self.policy {
                MissedTickPolicy::Burst => {}
                MissedTickPolicy::Skip => {
                    missed = u64::try_from(behind.div_ceil(period)).unwrap_or(u64::MAX);
                    index = index.saturating_add(missed);
                    due = self.deadline_or_forever(index);
                }
                MissedTickPolicy::Delay => {
                    missed = u64::try_from(behind / period).unwrap_or(u64::MAX);
                }
            }
        }
        let wake = self.sleeper.sleep_until(due);
        if overdue && self.policy == MissedTickPolicy::Delay {
            self.anchor = wake.woke();
            self.anchor_index = index;
        }
        self.next = index.saturating_add(1);
        self.missed = self.missed.saturating_add(missed);
        Tick {
            index,
            missed,
            wake,
        }
    }

    fn deadline_or_forever(&self, index: u64) -> Instant {
        self.deadline_of(index).unwrap_or_else(|| sleep_forever())
    }
}
