use std::fmt;
use std::time::{Duration, Instant};

use crate::wait::sleep_forever;
use crate::{Deadline, Sleeper};

/// Why a [`Poller`] gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PollError<E> {
    /// The deadline passed with the condition still unmet.
    TimedOut {
        /// From the start of polling to the check that found the deadline passed.
        elapsed: Duration,
        /// How many times the condition was checked.
        polls: u64,
    },
    /// The condition ended the wait with its own error.
    Failed(E),
}

impl<E: fmt::Display> fmt::Display for PollError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PollError::TimedOut { elapsed, polls } => write!(
                f,
                "timed out after {elapsed:?} and {polls} poll{}",
                if *polls == 1 { "" } else { "s" }
            ),
            PollError::Failed(e) => write!(f, "{e}"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for PollError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PollError::TimedOut { .. } => None,
            PollError::Failed(e) => Some(e),
        }
    }
}

/// Checks a condition until a real deadline, sleeping a step between checks.
///
/// The condition returns `Ok(Some(value))` when met, `Ok(None)` to keep polling, or
/// `Err(e)` to give up with its own error. Before each sleep the hook runs (the message pump
/// of a UI loop, a watchdog kick). Each sleep is `step`, shortened to end at the deadline;
/// the condition is checked once more at the deadline before the poller reports
/// [`PollError::TimedOut`], so a timeout comes within the deadline plus one check.
///
/// Sleeps use a native [`Sleeper`] unless [`Poller::with_sleeper`] says otherwise: a poll
/// step rarely needs the precision a spin tail buys.
///
/// # Examples
///
/// ```
/// use std::cell::Cell;
/// use std::time::Duration;
/// use punctual::{Deadline, PollError, Poller};
///
/// #[derive(Debug, PartialEq)]
/// enum Mailbox { Wedged }
///
/// let status = Cell::new(0u8);
/// let result = Poller::new(Deadline::after(Duration::from_millis(100)))
///     .step(Duration::from_millis(1))
///     .before_sleep(|| status.set(status.get() + 1)) // the pump; here it also answers
///     .until(|| match status.get() {
///         3 => Ok(Some("answered")),
///         0xFF => Err(Mailbox::Wedged),
///         _ => Ok(None),
///     });
/// assert_eq!(result, Ok("answered"));
///
/// let timeout = Poller::new(Deadline::after(Duration::from_millis(5)))
///     .until(|| Ok::<Option<()>, Mailbox>(None));
/// assert!(matches!(timeout, Err(PollError::TimedOut { .. })));
/// ```
pub struct Poller<H = fn()> {
    deadline: Deadline,
    step: Duration,
    hook: H,
    sleeper: Sleeper,
}

impl<H> fmt::Debug for Poller<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poller")
            .field("deadline", &self.deadline)
            .field("step", &self.step)
            .field("sleeper", &self.sleeper)
            .finish_non_exhaustive()
    }
}

impl Poller {
    /// The default step between checks.
    pub const DEFAULT_STEP: Duration = Duration::from_millis(1);

    /// Polls until `deadline`, a step of [`Poller::DEFAULT_STEP`], no hook.
    pub fn new(deadline: Deadline) -> Poller {
        Poller {
            deadline,
            step: Self::DEFAULT_STEP,
            hook: || {},
            sleeper: Sleeper::native(),
        }
    }
}

impl<H: FnMut()> Poller<H> {
    /// Sleeps `step` between checks (zero: check again at once).
    pub fn step(mut self, step: Duration) -> Poller<H> {
        self.step = step;
        self
    }

    /// Runs `hook` before every sleep.
    pub fn before_sleep<H2: FnMut()>(self, hook: H2) -> Poller<H2> {
        Poller {
            deadline: self.deadline,
            step: self.step,
            hook,
            sleeper: self.sleeper,
        }
    }

    /// Sleeps with `sleeper` between checks.
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Poller<H> {
        self.sleeper = sleeper;
        self
    }

    /// Polls `condition` until it is met, fails, or the deadline passes.
    ///
    /// # Errors
    ///
    /// [`PollError::Failed`] with the condition's own error, or [`PollError::TimedOut`] with
    /// the time elapsed and the number of checks. A timeout is never reported as success.
    pub fn until<T, E>(
        mut self,
        mut condition: impl FnMut() -> Result<Option<T>, E>,
    ) -> Result<T, PollError<E>> {
        let start = Instant::now();
        let mut polls = 0u64;
        loop {
            polls += 1;
            if let Some(value) = condition().map_err(PollError::Failed)? {
                return Ok(value);
            }
            let now = Instant::now();
            let next = now.checked_add(self.step);
            let wake_at = match (self.deadline.instant(), next) {
                (Some(deadline), _) if now >= deadline => {
                    return Err(PollError::TimedOut {
                        elapsed: now - start,
                        polls,
                    });
                }
                (Some(deadline), Some(next)) => next.min(deadline),
                (Some(deadline), None) => deadline,
                (None, Some(next)) => next,
                (None, None) => {
                    (self.hook)();
                    sleep_forever()
                }
            };
            (self.hook)();
            self.sleeper.sleep_until(wake_at);
        }
    }
}

/// Polls `condition` every `step` until `deadline`; [`Poller`] with no hook.
///
/// # Errors
///
/// As [`Poller::until`].
pub fn poll_until<T, E>(
    deadline: Deadline,
    step: Duration,
    condition: impl FnMut() -> Result<Option<T>, E>,
) -> Result<T, PollError<E>> {
    Poller::new(deadline).step(step).until(condition)
}
