use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::contention::{Contention, Spin};
use crate::margin::{MarginEstimator, Plan, COST_SAMPLES};
use crate::sys::{self, Platform};
use crate::wait::{native_until, sleep_forever, spin_until_counted};
use crate::{Error, HybridConfig, Wake};

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
    /// Hybrid waits that ended in a spin tail, [`SleepStats::spun_whole`] among them.
    pub spun: u64,
    /// Hybrid waits spun whole, with no native part: shorter than a native sleep's
    /// oversleep floor plus its CPU cost ([`Plan::Spin`]; see the margin docs, "Short
    /// waits").
    pub spun_whole: u64,
    /// Hybrid waits whose margin the CPU budget cut short of the tail target.
    pub capped: u64,
    /// Hybrid waits done natively all the way: a CPU budget of zero, or the sleeper backing
    /// off ([`Sleeper::backed_off`]).
    pub native_only: u64,
    /// Hybrid waits whose native part woke after the deadline itself: the margin was short.
    pub native_late: u64,
    /// Hybrid spins that lost the CPU while spinning: they took far longer than their clock
    /// reads account for (see [`Sleeper::backed_off`]).
    pub lost_cpu: u64,
    /// Hybrid waits done natively all the way because recent spins kept losing the CPU: the
    /// machine has more runnable threads than cores, and spinning would only take CPU from
    /// them (see [`Sleeper::backed_off`]).
    pub backed_off: u64,
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
    contention: Contention,
    last_margin: Duration,
    stats: SleepStats,
    /// What the latest wait left to account for; see [`Pending`].
    pending: Pending,
    /// Native parts begun, for the choice of those whose CPU cost is read.
    native_parts: u64,
    /// Waits the initial margin alone sent to a spin, for the choice of probes.
    prior_spins: u32,
}

/// Bookkeeping the latest hybrid wait left for later, so that nothing stands between the
/// clock reading that ends its spin and the caller getting control back: it is folded in
/// when the next wait starts (or the counters are read).
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    /// The native part's start, target and wake, when there was no time to learn from it
    /// before the deadline.
    native: Option<(Instant, Instant, Instant)>,
    /// The spin, not yet counted, and whether the back-off is to judge it (a hybrid spin).
    spin: Option<(Spin, bool)>,
}

/// How far [`Sleeper::until_spin`] took a wait.
enum Stage {
    Done(Wake),
    /// The spin from `from` to the deadline is left; `judge`: the back-off learns from it.
    Spin {
        from: Instant,
        judge: bool,
    },
}

/// Learning from the native part costs about a hundred nanoseconds: done before the spin
/// only when the deadline is at least this far off, or the spin would end late for it. The
/// same holds for the reading of the thread CPU clock after a native part.
const LEARN_BEFORE_SPIN: Duration = Duration::from_micros(2);

/// Whether a wait at `now` has at least [`LEARN_BEFORE_SPIN`] to go until `deadline`.
fn time_left(now: Instant, deadline: Instant) -> bool {
    now.checked_add(LEARN_BEFORE_SPIN)
        .is_some_and(|then| then < deadline)
}

/// Once [`COST_SAMPLES`] CPU costs are known, one native part in this many is read again.
const COST_EVERY: u64 = 16;

/// Until a window is trusted, one in this many waits that the initial margin alone sends to
/// a spin is a probe instead (see [`Sleeper::probe_due`]).
const PROBE_EVERY: u32 = 16;

impl Sleeper {
    /// A sleeper with the given strategy and the default [`HybridConfig`].
    pub fn new(strategy: Strategy) -> Sleeper {
        let config = HybridConfig::new();
        Sleeper {
            strategy,
            last_margin: config.initial_margin(),
            estimator: MarginEstimator::new(config).expect("the default config is valid"),
            contention: Contention::new(),
            stats: SleepStats::default(),
            pending: Pending::default(),
            native_parts: 0,
            prior_spins: 0,
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
            last_margin: config.initial_margin(),
            estimator: MarginEstimator::new(config)?,
            contention: Contention::new(),
            stats: SleepStats::default(),
            pending: Pending::default(),
            native_parts: 0,
            prior_spins: 0,
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
    #[inline]
    pub fn sleep(&mut self, duration: Duration) -> Wake {
        match Instant::now().checked_add(duration) {
            Some(deadline) => self.sleep_until(deadline),
            None => sleep_forever(),
        }
    }

    /// Waits until `deadline`; a deadline already past returns at once.
    // Inlined, and the spin with it, so that the caller's code follows the reading that ends
    // the spin as closely as it follows a loop of its own (see `docs/notes/margin-history.md`,
    // "The return path"); everything before the spin is one call that is not inlined.
    #[inline]
    pub fn sleep_until(&mut self, deadline: Instant) -> Wake {
        match self.until_spin(deadline) {
            Stage::Done(wake) => wake,
            Stage::Spin { from, judge } => {
                let (woke, reads) = spin_until_counted(deadline);
                self.pending.spin = Some((
                    Spin {
                        started: from,
                        ended: woke,
                        reads,
                    },
                    judge,
                ));
                Wake::new(deadline, woke, from)
            }
        }
    }

    /// Everything of a wait up to its spin: the whole wait when there is none.
    #[inline(never)]
    fn until_spin(&mut self, deadline: Instant) -> Stage {
        self.settle();
        let now = Instant::now();
        if now >= deadline {
            return Stage::Done(Wake::new(deadline, now, now));
        }
        self.stats.sleeps += 1;
        match self.strategy {
            Strategy::Native => {
                let woke = native_until(deadline);
                Stage::Done(Wake::new(deadline, woke, woke))
            }
            Strategy::Spin => Stage::Spin {
                from: now,
                judge: false,
            },
            Strategy::Hybrid => self.hybrid_until_spin(deadline, now),
        }
    }

    fn hybrid_until_spin(&mut self, deadline: Instant, now: Instant) -> Stage {
        let wait = deadline - now;
        let plan = self.hybrid_plan(wait);
        match plan {
            Plan::Hybrid { .. } | Plan::Spin { .. } => {}
            Plan::Capped { .. } => self.stats.capped += 1,
            Plan::Native { .. } => self.stats.native_only += 1,
        }
        let margin = plan.margin();
        self.last_margin = margin;
        if margin >= wait {
            // No native part. Sleeping to a target already passed would return at once and
            // teach the estimator an oversleep of nanoseconds, as if the shortest native
            // sleeps woke on time.
            self.stats.spun += 1;
            self.stats.spun_whole += 1;
            return Stage::Spin {
                from: now,
                judge: true,
            };
        }
        let target = deadline - margin;
        let (native_woke, after) = self.native_part(target, deadline);
        if native_woke >= deadline {
            self.learn(now, target, native_woke);
            if margin > Duration::ZERO {
                self.stats.native_late += 1;
            }
            return Stage::Done(Wake::new(deadline, native_woke, native_woke));
        }
        if time_left(after, deadline) {
            self.learn(now, target, native_woke);
        } else {
            self.pending.native = Some((now, target, native_woke));
        }
        self.stats.spun += 1;
        Stage::Spin {
            from: after,
            judge: true,
        }
    }

    /// Sleeps natively until `target`, reading the thread CPU clock around it when a reading
    /// is due ([`Sleeper::cost_due`]) and the wake leaves time for it before `deadline`.
    /// Returns the wake and the time a spin may start from (after the reading, so that the
    /// back-off does not count the reading as time the spin lost).
    fn native_part(&mut self, target: Instant, deadline: Instant) -> (Instant, Instant) {
        let before = if self.cost_due() {
            sys::Os::thread_cpu_time()
        } else {
            None
        };
        let woke = native_until(target);
        let Some(before) = before else {
            return (woke, woke);
        };
        if woke < deadline && !time_left(woke, deadline) {
            return (woke, woke);
        }
        if let Some(after) = sys::Os::thread_cpu_time() {
            self.estimator.record_cost(after.saturating_sub(before));
        }
        (woke, Instant::now().max(woke))
    }

    /// The plan for a hybrid wait: the estimator's, a probe's instead of a whole spin while
    /// the threshold rests on the initial margin alone ([`Sleeper::probe_due`]), and native
    /// while backing off, but for a wait shorter than a native sleep's CPU cost, which a
    /// spin serves with less CPU.
    fn hybrid_plan(&mut self, wait: Duration) -> Plan {
        let mut plan = self.estimator.plan(wait);
        if matches!(plan, Plan::Spin { .. }) && self.probe_due(wait) {
            plan = self.estimator.plan_budgeted(wait).0;
        }
        if !self.estimator.config().back_off()
            || self.spins_for_less_cpu(plan, wait)
            || self.contention.may_spin()
        {
            return plan;
        }
        self.stats.backed_off += 1;
        Plan::Native {
            wanted: plan.wanted(),
        }
    }

    /// Whether `plan` spins a wait of `wait` whole for less CPU than a native sleep costs.
    fn spins_for_less_cpu(&self, plan: Plan, wait: Duration) -> bool {
        matches!(plan, Plan::Spin { .. })
            && self.estimator.native_cost().is_some_and(|cost| wait < cost)
    }

    /// Whether this wait, which the short-wait threshold sends to a spin, is a probe
    /// instead, planned by the budget rule: one in [`PROBE_EVERY`] of those while the
    /// threshold is the initial margin and no window is trusted (nothing measured yet, or
    /// only a stall), of those at least the budget's share of the initial margin long.
    ///
    /// A spin teaches nothing, so a thread whose waits are all shorter than the initial
    /// margin would otherwise spin them whole for ever, even where a native part would serve
    /// them for a fraction of the CPU. A wait shorter than that share costs less spun whole
    /// than the budget lets a wait of the initial margin spin, and is left to spin.
    fn probe_due(&mut self, wait: Duration) -> bool {
        let estimator = &self.estimator;
        let initial = estimator.config().initial_margin();
        if estimator.trusts_any()
            || wait < initial.mul_f64(estimator.config().budget())
            || estimator.short_threshold(wait) < initial
        {
            return false;
        }
        self.prior_spins = self.prior_spins.wrapping_add(1);
        self.prior_spins % PROBE_EVERY == 0
    }

    /// Whether to read the thread CPU clock around this native part: around the first
    /// [`COST_SAMPLES`] but the sleeper's very first (on a new thread it pays the thread's
    /// timer set-up), then around one in [`COST_EVERY`].
    fn cost_due(&mut self) -> bool {
        self.native_parts += 1;
        self.native_parts > 1
            && (self.estimator.cost_samples() < COST_SAMPLES || self.native_parts % COST_EVERY == 0)
    }

    fn learn(&mut self, started: Instant, target: Instant, woke: Instant) {
        self.estimator.record(target - started, woke - target);
    }

    /// Folds in what the latest wait left pending.
    fn settle(&mut self) {
        if let Some((started, target, woke)) = self.pending.native.take() {
            self.learn(started, target, woke);
        }
        if let Some((spin, judge)) = self.pending.spin.take() {
            self.stats.spin_time += spin.ended - spin.started;
            if judge && self.contention.observe(spin) {
                self.stats.lost_cpu += 1;
            }
        }
    }

    /// Whether the hybrid strategy is backing off now: recent spins kept losing the CPU to
    /// other threads (more runnable threads than cores), so its waits sleep natively, but for
    /// one in 16 that still spins to see whether the contention has passed.
    ///
    /// Judged from the spins up to the one before the latest wait.
    pub fn backed_off(&self) -> bool {
        self.contention.backing_off()
    }

    /// The margin the hybrid strategy used for its latest wait (zero when it slept natively
    /// all the way, the whole wait when it spun it whole), or the initial margin before the
    /// first.
    pub fn margin(&self) -> Duration {
        self.last_margin
    }

    /// What the hybrid strategy would do now for a wait of `wait`: while it is backing off
    /// ([`Sleeper::backed_off`]), native all the way, but for the probes and for a wait
    /// shorter than a native sleep's CPU cost, which it spins whole.
    #[doc(hidden)] // Research: for replays of the margin; see `punctual::margin`.
    pub fn plan(&self, wait: Duration) -> Plan {
        match self.estimator.plan(wait) {
            plan if self.estimator.config().back_off()
                && self.contention.backing_off()
                && !self.spins_for_less_cpu(plan, wait) =>
            {
                Plan::Native {
                    wanted: plan.wanted(),
                }
            }
            plan => plan,
        }
    }

    /// The estimator behind the hybrid margin.
    ///
    /// The latest wait's oversleep is in it unless its spin had under 2 us to go when the
    /// native part woke; then it is learned when the next wait starts.
    #[doc(hidden)] // Research: for replays of the margin; see `punctual::margin`.
    pub fn estimator(&self) -> &MarginEstimator {
        &self.estimator
    }

    /// The counters so far, the latest wait's included.
    pub fn stats(&self) -> SleepStats {
        let mut stats = self.stats;
        if let Some((spin, judge)) = self.pending.spin {
            stats.spin_time += spin.ended - spin.started;
            if judge && self.contention.clone().observe(spin) {
                stats.lost_cpu += 1;
            }
        }
        stats
    }
}
