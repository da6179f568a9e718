use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::margin::{HybridConfig, MarginEstimator, Plan};
use crate::wait::{native_until, sleep_forever, spin_until};
use crate::{Error, Wake};

/// How a [`Sleeper`] waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The OS's best high-resolution timer, no spinning: the least CPU, tens of
    /// microseconds late on a typical Linux machine.
    Native,
    /// Native sleep to `deadline - margin`, then a spin on the monotonic clock; the margin is
    /// learned from this sleeper's measured oversleep (see [`margin`](crate::margin)).
    Hybrid,
    /// A busy wait on the monotonic clock: the whole wait costs CPU.
    Spin,
}

impl Strategy {
    /// Every strategy, in the order the CLI lists them.
    pub const ALL: [Strategy; 3] = [Strategy::Native, Strategy::Hybrid, Strategy::Spin];

    /// The lower-case name, as [`FromStr`] accepts it.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Native => "native",
            Strategy::Hybrid => "hybrid",
            Strategy::Spin => "spin",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name given to [`Strategy::from_str`] is not a strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStrategy(pub String);

impl fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown strategy `{}` (expected native, hybrid or spin)",
            self.0
        )
    }
}

impl std::error::Error for UnknownStrategy {}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Strategy, UnknownStrategy> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

/// Counters of a [`Sleeper`]; the hybrid ones stay zero for other strategies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SleepStats {
    /// Waits that had a deadline still ahead of them.
    pub sleeps: u64,
    /// Hybrid waits that ended in a spin tail.
    pub spun: u64,
    /// Hybrid waits whose margin the CPU budget cut short of the tail target.
    pub capped: u64,
    /// Hybrid waits done natively all the way: no recent oversleep fit in the budget.
    pub native_only: u64,
    /// Hybrid waits whose native part woke after the deadline itself: the margin was short.
    pub native_late: u64,
    /// Total time spent spinning, over all waits.
    pub spin_time: Duration,
}

/// A waiter with a fixed [`Strategy`], reporting each wait as a [`Wake`].
///
/// Every wait ends on a clock reading at or after its deadline, as measured by
/// [`std::time::Instant`]: no strategy ever returns early.
///
/// A hybrid sleeper learns from the sleeps it makes, so keep one per thread and reuse it
/// ([`sleep`](crate::sleep) does this for you with a thread-local one).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::Sleeper;
///
/// let mut sleeper = Sleeper::hybrid();
/// let wake = sleeper.sleep(Duration::from_micros(200));
/// assert!(wake.woke() >= wake.deadline());
/// println!("{:?} late, margin now {:?}", wake.lateness(), sleeper.margin());
/// ```
#[derive(Debug, Clone)]
pub struct Sleeper {
    strategy: Strategy,
    estimator: MarginEstimator,
    last_margin: Duration,
    stats: SleepStats,
}

impl Sleeper {
    /// A sleeper with the given strategy and the default [`HybridConfig`].
    pub fn new(strategy: Strategy) -> Sleeper {
        let config = HybridConfig::new();
        Sleeper {
            strategy,
            last_margin: config.initial_margin,
            estimator: MarginEstimator::new(config).expect("the default config is valid"),
            stats: SleepStats::default(),
        }
    }

    /// [`Strategy::Native`].
    pub fn native() -> Sleeper {
        Sleeper::new(Strategy::Native)
    }

    /// [`Strategy::Hybrid`] with the default configuration.
    pub fn hybrid() -> Sleeper {
        Sleeper::new(Strategy::Hybrid)
    }

    /// [`Strategy::Spin`].
    pub fn spin() -> Sleeper {
        Sleeper::new(Strategy::Spin)
    }

    /// [`Strategy::Hybrid`] tuned by `config`.
    ///
    /// # Errors
    ///
    /// Whatever [`HybridConfig::validate`] finds.
    pub fn hybrid_with(config: HybridConfig) -> Result<Sleeper, Error> {
        Ok(Sleeper {
            strategy: Strategy::Hybrid,
            last_margin: config.initial_margin,
            estimator: MarginEstimator::new(config)?,
            stats: SleepStats::default(),
        })
    }

    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Waits for `duration` from now.
    ///
    /// A duration so long that `Instant::now() + duration` overflows (such as
    /// [`Duration::MAX`]) never returns; the thread sleeps natively meanwhile, whatever the
    /// strategy, as [`std::thread::sleep`] does.
    pub fn sleep(&mut self, duration: Duration) -> Wake {
        match Instant::now().checked_add(duration) {
            Some(deadline) => self.sleep_until(deadline),
            None => sleep_forever(),
        }
    }

    /// Waits until `deadline`; a deadline already past returns at once.
    pub fn sleep_until(&mut self, deadline: Instant) -> Wake {
        let now = Instant::now();
        if now >= deadline {
            return Wake::new(deadline, now, Duration::ZERO);
        }
        self.stats.sleeps += 1;
        match self.strategy {
            Strategy::Native => Wake::new(deadline, native_until(deadline), Duration::ZERO),
            Strategy::Spin => {
                let woke = spin_until(deadline);
                self.stats.spin_time += woke - now;
                Wake::new(deadline, woke, woke - now)
            }
            Strategy::Hybrid => self.hybrid_until(deadline, now),
        }
    }

    fn hybrid_until(&mut self, deadline: Instant, now: Instant) -> Wake {
        let wait = deadline - now;
        let plan = self.estimator.plan(wait);
        match plan {
            Plan::Hybrid { .. } => {}
            Plan::Capped { .. } => self.stats.capped += 1,
            Plan::Native { .. } => self.stats.native_only += 1,
        }
        let margin = plan.margin();
        self.last_margin = margin;
        let target = deadline - margin;
        let native_woke = native_until(target);
        self.estimator.record(target - now, native_woke - target);
        if native_woke >= deadline {
            if margin > Duration::ZERO {
                self.stats.native_late += 1;
            }
            return Wake::new(deadline, native_woke, Duration::ZERO);
        }
        let woke = spin_until(deadline);
        self.stats.spun += 1;
        self.stats.spin_time += woke - native_woke;
        Wake::new(deadline, woke, woke - native_woke)
    }

    /// The margin the hybrid strategy used for its latest wait (zero when it slept natively
    /// all the way), or the initial margin before the first.
    pub fn margin(&self) -> Duration {
        self.last_margin
    }

    /// What the hybrid strategy would do now for a wait of `wait`.
    #[doc(hidden)] // Research: for replays of the margin; see `punctual::margin`.
    pub fn plan(&self, wait: Duration) -> Plan {
        self.estimator.plan(wait)
    }

    /// The estimator behind the hybrid margin.
    #[doc(hidden)] // Research: for replays of the margin; see `punctual::margin`.
    pub fn estimator(&self) -> &MarginEstimator {
        &self.estimator
    }

    /// The counters so far.
    pub fn stats(&self) -> SleepStats {
        self.stats
    }
}
