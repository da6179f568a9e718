//! [`Interval`]: the async twin of [`Ticker`](crate::Ticker), on the same grid arithmetic.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use super::driver::Shared;
use super::Sleep;
use crate::grid::{Due, Grid};
use crate::{MissedTickPolicy, Tick};

/// Ticks on a fixed grid, asynchronously: tick `k` is due at `first + k * period`, computed
/// in integer nanoseconds, with the [`MissedTickPolicy`] of a [`Ticker`](crate::Ticker)
/// (by default [`Skip`](MissedTickPolicy::Skip)).
///
/// Whether a tick is overdue is decided on the first poll after the previous tick (the
/// async counterpart of entering [`Ticker::tick`](crate::Ticker::tick)). Dropping a
/// [`Interval::tick`] future before it completes loses nothing: the next call waits for
/// the same tick.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::MissedTickPolicy;
///
/// futures::executor::block_on(async {
///     let mut interval = punctual::future::interval(Duration::from_micros(500))?
///         .with_policy(MissedTickPolicy::Burst);
///     for k in 0..5 {
///         let tick = interval.tick().await;
///         assert_eq!(tick.index(), k);
///         assert!(tick.wake().woke() >= tick.deadline());
///     }
///     Ok::<(), punctual::Error>(())
/// })?;
/// # Ok::<(), punctual::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "an Interval does nothing unless its ticks are awaited"]
pub struct Interval {
    grid: Grid,
    sleep: Sleep,
    /// The tick being waited for, decided on the first poll after the previous one.
    due: Option<Due>,
}

impl Interval {
    pub(crate) fn new(driver: &Arc<Shared>, grid: Grid) -> Interval {
        Interval {
            grid,
            sleep: Sleep::never(driver, Instant::now()),
            due: None,
        }
    }

    /// Handles overdue ticks by `policy`.
    pub fn with_policy(mut self, policy: MissedTickPolicy) -> Interval {
        self.grid.set_policy(policy);
        self
    }

    /// Waits for the next tick.
    pub async fn tick(&mut self) -> Tick {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick: the building block of [`Interval::tick`] for hand-written
    /// futures and streams.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Tick> {
        let due = match self.due {
            Some(due) => due,
            None => {
                let due = self.grid.due(Instant::now());
                match due.deadline {
                    Some(deadline) => self.sleep.reset(deadline),
                    None => self.sleep.reset_never(),
                }
                self.due = Some(due);
                due
            }
        };
        let wake = match Pin::new(&mut self.sleep).poll(cx) {
            Poll::Ready(wake) => wake,
            Poll::Pending => return Poll::Pending,
        };
        self.grid.advance(&due, wake.woke());
        self.due = None;
        Poll::Ready(Tick::new(due.index, due.missed, wake))
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.grid.period()
    }

    /// The policy for overdue ticks.
    pub fn policy(&self) -> MissedTickPolicy {
        self.grid.policy()
    }

    /// The index of the next tick, unless it turns out overdue.
    pub fn next_index(&self) -> u64 {
        self.grid.next_index()
    }

    /// All ticks missed so far.
    pub fn missed(&self) -> u64 {
        self.grid.missed()
    }

    /// When tick `index` is due on the grid as it stands, or `None` before the grid's anchor
    /// or past the end of `Instant`.
    pub fn deadline_of(&self, index: u64) -> Option<Instant> {
        self.grid.deadline_of(index)
    }
}
