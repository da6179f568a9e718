//! The hybrid strategy's learned margin: how early to stop sleeping natively and start
//! spinning.
//!
//! Every native sleep of the hybrid strategy reports its *oversleep*, how far past its own
//! target it woke, and [`MarginEstimator`] turns the recent ones into a [`Plan`] for the
//! next wait. A [`Sleeper`](crate::Sleeper) keeps one per thread; [`HybridConfig`] sets its
//! parameters. The repository's `docs/margin.md` has the design with its cost model, and
//! `docs/notes/margin-history.md` the evidence for each rule.
//!
//! # The tail target
//!
//! The estimator keeps the last [`HybridConfig::window`] oversleeps (1000 by default) and
//! aims the margin at their [`HybridConfig::tail`] quantile (99% by default) plus a
//! headroom of [`HybridConfig::headroom`] spreads, which shrinks as samples accumulate:
//!
//! ```text
//! margin = q_tail + headroom * min(1, 100 / n) * (q_tail - q_median)
//! ```
//!
//! - **A long window**, because a margin that jumps costs more spin than a steady one for
//!   the same coverage: off 1000 samples the 99% quantile moves by a sample's rank when one
//!   stall enters or leaves, where off 100 it moves by the stall.
//! - **Outliers**: the single largest oversleep in the window is never covered.
//! - **Level shifts**: when the median of the newest 100 samples is further from the median
//!   of the 100 before than twice their interquartile range, the level has moved (noise
//!   moves such a median by about a tenth of that range) and the window keeps only its
//!   newest 40 ([`MarginEstimator::level_shifts`] counts it). A step up shows within a dozen
//!   sleeps, a step down of more than twice the spread within about fifty.
//! - **Buckets by length**: oversleep grows with how long the native part sleeps (a longer
//!   sleep reaches a deeper idle state), so samples go into buckets a factor of 4 apart
//!   (under 16 us, 16 to 64 us, ..., 64 ms and over), each a window of its own.
//!
//! # The CPU budget
//!
//! The spin may not exceed [`HybridConfig::budget`] of the requested wait (a quarter by
//! default), except by the *floor* of recent oversleeps (the 1st percentile of a trusted
//! window): a wait spins its margin less its native part's oversleep, and no native part
//! wakes on time, so only a wait whose native part wakes sooner than 99 in 100 recent ones
//! spins past the budget, by less than that floor. When the tail target needs more, the
//! margin covers 90% of the recent oversleeps that fit ([`Plan::Capped`]): a stall longer
//! than the budget cannot be covered, and letting it into the estimate would burn the whole
//! budget on every wait. A budget of zero sleeps natively all the way ([`Plan::Native`]).
//!
//! # Short waits
//!
//! A native part costs its thread CPU of its own (`c`, the median of the last 16 readings
//! of the thread CPU clock around native parts, [`MarginEstimator::native_cost`]) and wakes
//! no sooner than the floor `f` of its oversleeps. An on-time native part gives back at
//! most `w - c` of a wait `w`'s CPU, so a wait shorter than
//!
//! ```text
//! threshold = min(f + c, m0)        m0: HybridConfig::initial_margin
//! ```
//!
//! is spun whole ([`Plan::Spin`], [`MarginEstimator::short_threshold`]): a native part
//! there saves less than `f` in CPU and may wake late, where the spin is on time. Before
//! anything is measured the threshold is [`HybridConfig::initial_margin`], the platform's
//! guess at a native sleep's oversleep; after, that still bounds it, since a spin teaches
//! nothing and a floor raised by a burst of stalls would otherwise keep the waits under it
//! spinning after the burst. While the threshold rests on the initial margin alone, a
//! [`Sleeper`](crate::Sleeper) plans one in 16 of those waits by the budget rule, as a
//! probe. The async driver's tail plans by the budget rule alone: a whole spin there would
//! hold up the executor's other tasks.
//!
//! # New lengths
//!
//! A length with fewer than 8 samples reaches above its least sample as far as the nearest
//! trusted window's margin reaches above that window's floor (its *reach* `R`), and at
//! least to its own tail; with no samples it borrows that window whole. The nearest is
//! looked for among longer lengths first at each distance: their oversleep is the larger, so
//! borrowing errs towards spinning, not towards waking late. With no trusted
//! window the reach is the initial margin. Its floor for the budget is its least sample,
//! capped at the neighbour's (zero with none): its few samples may all be stalls. So each
//! of a length's first seven sleeps spins at most `R` more than its own samples would ask,
//! and the first sleep of a thread spins at most the initial margin.

mod cost;
mod window;

use std::time::Duration;

use cost::NativeCost;
pub(crate) use cost::COST_SAMPLES;
use window::Window;

use crate::{saturating_nanos, Error, HybridConfig};

/// What the hybrid strategy will do for a wait of a given length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Sleep natively until `deadline - margin`, then spin; the margin meets the tail target.
    Hybrid {
        /// How early the native sleep ends.
        margin: Duration,
    },
    /// The tail target wants more spin than the budget allows: the margin covers the recent
    /// oversleeps that fit in the budget and their floor (all of it when none does); longer
    /// ones wake late.
    Capped {
        /// How early the native sleep ends; at most the budget and the floor of recent
        /// oversleeps.
        margin: Duration,
        /// The margin the tail target wanted.
        wanted: Duration,
    },
    /// Sleep natively all the way, no spin: a budget of zero, or a sleeper backing off (see
    /// [`Sleeper::backed_off`](crate::Sleeper::backed_off)).
    Native {
        /// The margin the tail target wanted.
        wanted: Duration,
    },
    /// Spin the whole wait, no native part: the wait is shorter than a native sleep's
    /// oversleep floor plus its CPU cost ([`MarginEstimator::short_threshold`]), so no native
    /// part could serve it better.
    Spin {
        /// The whole wait.
        margin: Duration,
        /// The margin the tail target wanted.
        wanted: Duration,
    },
}

impl Plan {
    /// How early the native sleep ends (zero for [`Plan::Native`], the whole wait for
    /// [`Plan::Spin`]).
    pub fn margin(&self) -> Duration {
        match *self {
            Plan::Hybrid { margin } | Plan::Capped { margin, .. } | Plan::Spin { margin, .. } => {
                margin
            }
            Plan::Native { .. } => Duration::ZERO,
        }
    }

    /// The margin the tail target wanted, budget aside.
    pub fn wanted(&self) -> Duration {
        match *self {
            Plan::Hybrid { margin: wanted }
            | Plan::Capped { wanted, .. }
            | Plan::Native { wanted }
            | Plan::Spin { wanted, .. } => wanted,
        }
    }
}

/// Buckets by native sleep length: under 16 us, then a factor of 4 each, 64 ms and over last.
const BUCKETS: usize = 8;
const FIRST_BUCKET_NANOS: u64 = 16_000;
/// A bucket with fewer samples is young: it borrows its reach above its least sample from
/// a neighbour (see [`MarginEstimator::evidence`]).
const MIN_SAMPLES: usize = 8;
/// The share of the oversleeps within the budget that a capped margin covers. When more
/// than `1 - tail` of them are past the budget, the tail is lost to stalls whatever the
/// margin; covering the top of what fits would only spin more of every wait for sleeps
/// that are rare, and on a loaded machine cost the thread the scheduler's favour too.
const CAPPED_TAIL: f64 = 0.9;
/// The window size at which the headroom is [`HybridConfig::headroom`] spreads; it shrinks in
/// proportion past it, as the error of the quantile read off the window does.
const HEADROOM_SAMPLES: usize = 100;

/// Which bucket a native length falls in, kept by a caller between planning a wait and
/// recording its oversleep; one byte, so an async sleep carries it for free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LengthClass(u8);

impl LengthClass {
    /// How many classes there are.
    pub(crate) const COUNT: u8 = BUCKETS as u8;

    /// The class's index, below [`LengthClass::COUNT`].
    pub(crate) fn index(self) -> u8 {
        self.0
    }

    /// The class of an index, the last for one too large.
    pub(crate) fn from_index(index: u8) -> LengthClass {
        LengthClass(index.min(Self::COUNT - 1))
    }
}

fn bucket_of(native: Duration) -> usize {
    let nanos = saturating_nanos(native);
    if nanos < FIRST_BUCKET_NANOS {
        return 0;
    }
    let log2 = (nanos / FIRST_BUCKET_NANOS).ilog2() as usize;
    (1 + log2 / 2).min(BUCKETS - 1)
}

/// The floor of a window's oversleeps: its 1st percentile, which is its least sample while it
/// holds fewer than 201 (zero for an empty window). A margin that much over the budget spins
/// past the budget only on a native part that wakes sooner than 99 in 100 of them did, or
/// sooner than all `n` of a window under 100 (one chance in `n + 1`).
fn floor_of(window: &Window) -> Duration {
    let sorted = window.sorted();
    sorted
        .get(sorted.len().saturating_sub(1) / 100)
        .map_or(Duration::ZERO, |&nanos| {
            Duration::from_nanos(u64::from(nanos))
        })
}

/// How far above its floor a trusted window's margin reaches: what a young length adds to
/// its own least sample.
fn reach_of(window: &Window, tail: f64, headroom: f64) -> Duration {
    Duration::from_nanos(tail_margin(window.sorted(), tail, headroom))
        .saturating_sub(floor_of(window))
}

/// The margin over a window's samples no longer than `limit_nanos`, or `None` when none is.
fn margin_within(window: &Window, limit_nanos: u64, tail: f64, headroom: f64) -> Option<u64> {
    let sorted = window.sorted();
    let fit = sorted.partition_point(|&x| u64::from(x) <= limit_nanos);
    (fit > 0).then(|| tail_margin(&sorted[..fit], tail, headroom).min(limit_nanos))
}

fn is_trusted(window: &Window) -> bool {
    window.sorted().len() >= MIN_SAMPLES
}

fn is_measured(window: &Window) -> bool {
    !window.sorted().is_empty()
}

/// `q_tail + headroom * (q_tail - q_median)` of an ascending, non-empty slice, where
/// `q_tail` is never the single largest sample of two or more, and the headroom shrinks as
/// `HEADROOM_SAMPLES / n` past that many samples.
fn tail_margin(sorted: &[u32], tail: f64, headroom: f64) -> u64 {
    let n = sorted.len();
    let headroom = headroom * HEADROOM_SAMPLES as f64 / n.max(HEADROOM_SAMPLES) as f64;
    let highest_rank = if n >= 2 { n - 1 } else { 1 };
    let rank = ((tail * n as f64).ceil() as usize).clamp(1, highest_rank) - 1;
    let q_tail = f64::from(sorted[rank]);
    let q_median = f64::from(sorted[(n - 1) / 2]);
    (q_tail + headroom * (q_tail - q_median).max(0.0)).round() as u64
}

/// Learns the hybrid margin from measured oversleep; see the [module docs](crate::margin).
///
/// [`Sleeper`](crate::Sleeper) owns one; it is public so that its behaviour can be studied
/// on synthetic series.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::margin::{MarginEstimator, Plan};
/// use punctual::HybridConfig;
///
/// let mut est = MarginEstimator::new(HybridConfig::new())?;
/// for _ in 0..100 {
///     est.record(Duration::from_micros(900), Duration::from_micros(30));
/// }
/// est.record(Duration::from_micros(900), Duration::from_millis(3)); // one stall
/// assert_eq!(est.plan(Duration::from_millis(1)), Plan::Hybrid { margin: Duration::from_micros(30) });
/// # Ok::<(), punctual::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MarginEstimator {
    config: HybridConfig,
    buckets: [Window; BUCKETS],
    costs: NativeCost,
    level_shifts: u64,
}

/// What the estimator knows of native sleeps of one length: the window whose samples a
/// capped margin is read off (the length's own, or the one it borrows), the margin the tail
/// target wants, and the floor the margin may pass the budget by.
struct Evidence<'a> {
    window: Option<&'a Window>,
    wanted: Duration,
    floor: Duration,
}

impl MarginEstimator {
    /// An estimator that has measured nothing yet.
    ///
    /// # Errors
    ///
    /// Whatever [`HybridConfig::validate`] finds.
    pub fn new(config: HybridConfig) -> Result<MarginEstimator, Error> {
        config.validate()?;
        Ok(MarginEstimator {
            config,
            buckets: Default::default(),
            costs: NativeCost::default(),
            level_shifts: 0,
        })
    }

    /// The configuration in use.
    ///
    /// ```
    /// use punctual::margin::MarginEstimator;
    /// use punctual::HybridConfig;
    ///
    /// let est = MarginEstimator::new(HybridConfig::new().with_window(300))?;
    /// assert_eq!(est.config().window(), 300);
    /// assert_eq!(est.config().tail(), HybridConfig::new().tail());
    /// # Ok::<(), punctual::Error>(())
    /// ```
    pub fn config(&self) -> &HybridConfig {
        &self.config
    }

    /// Records that a native sleep of length `native` woke `oversleep` past its target.
    pub fn record(&mut self, native: Duration, oversleep: Duration) {
        self.record_in(LengthClass(bucket_of(native) as u8), oversleep);
    }

    /// Records an oversleep of a native part whose class [`MarginEstimator::plan_budgeted`]
    /// gave.
    pub(crate) fn record_in(&mut self, class: LengthClass, oversleep: Duration) {
        let nanos = u32::try_from(saturating_nanos(oversleep)).unwrap_or(u32::MAX);
        let bucket = usize::from(class.0).min(BUCKETS - 1);
        if self.buckets[bucket].push(nanos, self.config.window()) {
            self.level_shifts += 1;
        }
    }

    /// Records that one native sleep cost its thread `cpu` of CPU time (the thread CPU
    /// clock's reading after it, less the one before). The median of the last 16 is the
    /// cost in the [short-wait threshold](MarginEstimator::short_threshold).
    pub fn record_cost(&mut self, cpu: Duration) {
        self.costs
            .push(u32::try_from(saturating_nanos(cpu)).unwrap_or(u32::MAX));
    }

    /// What a native sleep costs this thread in CPU time: the median of the last 16
    /// [recorded](MarginEstimator::record_cost), or `None` before the first.
    pub fn native_cost(&self) -> Option<Duration> {
        self.costs.median()
    }

    /// How many CPU costs are kept (at most 16).
    pub(crate) fn cost_samples(&self) -> usize {
        self.costs.len()
    }

    /// Whether any length has enough samples to speak for itself.
    pub(crate) fn trusts_any(&self) -> bool {
        self.buckets.iter().any(is_trusted)
    }

    /// The nearest window to `home` that `fits`, the longer one when two are as near:
    /// longer sleeps oversleep more, so borrowing from one errs towards spinning, not
    /// towards waking late.
    fn nearest(&self, home: usize, fits: fn(&Window) -> bool) -> Option<&Window> {
        (0..BUCKETS)
            .flat_map(|d| [home + d, home.wrapping_sub(d)])
            .filter(|&b| b < BUCKETS)
            .map(|b| &self.buckets[b])
            .find(|w| fits(w))
    }

    /// What speaks for native sleeps in `bucket`; see the module docs, "New lengths".
    ///
    /// - A trusted window (8 samples or more) speaks for itself.
    /// - A young one (1 to 7) reaches above its least sample as far as the nearest trusted
    ///   window's margin reaches above that window's floor, or by the initial margin when no
    ///   window is trusted, and at least as far as its own tail. Its floor is its least
    ///   sample, but no higher than the trusted window's floor, and zero with none: a few
    ///   samples may all be stalls, and a floor that high would let every margin run to the
    ///   whole wait, which spins and teaches nothing.
    /// - An empty one borrows the nearest trusted window whole; with none, it is planned as
    ///   the nearest young one; with none of those either, the initial margin.
    fn evidence(&self, bucket: usize) -> Evidence<'_> {
        let (tail, headroom) = (self.config.tail(), self.config.headroom());
        let own = &self.buckets[bucket];
        let trusted = self.nearest(bucket, is_trusted);
        let young = match trusted {
            Some(window) if is_trusted(own) || !is_measured(own) => {
                return Evidence {
                    window: Some(window),
                    wanted: Duration::from_nanos(tail_margin(window.sorted(), tail, headroom)),
                    floor: floor_of(window),
                };
            }
            _ if is_measured(own) => own,
            _ => match self.nearest(bucket, is_measured) {
                Some(window) => window,
                None => {
                    return Evidence {
                        window: None,
                        wanted: self.config.initial_margin(),
                        floor: Duration::ZERO,
                    }
                }
            },
        };
        let least = floor_of(young);
        let reach = trusted.map_or(self.config.initial_margin(), |window| {
            reach_of(window, tail, headroom)
        });
        let own_tail = Duration::from_nanos(tail_margin(young.sorted(), tail, headroom));
        Evidence {
            window: Some(young),
            wanted: (least + reach).max(own_tail),
            floor: trusted.map_or(Duration::ZERO, |window| floor_of(window).min(least)),
        }
    }

    /// The learned margin for a native sleep of length `native`, without the budget.
    pub fn margin_for_native(&self, native: Duration) -> Duration {
        self.evidence(bucket_of(native)).wanted
    }

    /// The wait below which [`MarginEstimator::plan`] spins a wait of about `wait` whole
    /// ([`Plan::Spin`]): the oversleep floor of native sleeps of about that length plus what
    /// a native sleep costs the thread in CPU, at most the initial margin, which is also the
    /// threshold before anything is measured. See the module docs, "Short waits".
    ///
    /// The floor is that of the trusted window nearest the wait's length (the least
    /// oversleep of all while none is trusted); the cost is [`MarginEstimator::native_cost`],
    /// zero while none is recorded.
    ///
    /// ```
    /// use std::time::Duration;
    /// use punctual::margin::{MarginEstimator, Plan};
    /// use punctual::HybridConfig;
    ///
    /// let us = Duration::from_micros;
    /// let config = HybridConfig::new().with_initial_margin(us(100));
    /// let mut est = MarginEstimator::new(config)?;
    /// assert_eq!(est.short_threshold(us(40)), us(100), "nothing measured yet");
    /// for _ in 0..100 {
    ///     est.record(us(60), us(20)); // native sleeps of 60 us wake 20 us late
    ///     est.record_cost(us(35)); // and cost the thread 35 us of CPU
    /// }
    /// assert_eq!(est.short_threshold(us(40)), us(55));
    /// assert_eq!(est.plan(us(40)), Plan::Spin { margin: us(40), wanted: us(20) });
    /// # Ok::<(), punctual::Error>(())
    /// ```
    pub fn short_threshold(&self, wait: Duration) -> Duration {
        // The initial margin is the guess at how far a native sleep oversleeps: before
        // anything is measured, a native part of a shorter wait would, by that guess, wake
        // past the deadline and cost the thread a system call besides, where a spin of the
        // wait is on time and costs no more than the initial margin the first hybrid wait
        // spins anyway. Once measured it still bounds the threshold: a spin teaches nothing,
        // so a floor raised by a burst of stalls would keep every wait under it spinning
        // whole long after the burst; bounded, a wait longer than the initial margin always
        // keeps a native part, and the windows keep learning.
        let most = self.config.initial_margin();
        let floor = match self.nearest(bucket_of(wait), is_trusted) {
            Some(window) => floor_of(window),
            None => match self.buckets.iter().filter_map(|w| w.sorted().first()).min() {
                Some(&nanos) => Duration::from_nanos(u64::from(nanos)),
                None => return most,
            },
        };
        (floor + self.native_cost().unwrap_or(Duration::ZERO)).min(most)
    }

    /// What to do for a wait of `wait` from now: spin it whole when it is shorter than the
    /// [short-wait threshold](MarginEstimator::short_threshold) (and the budget is not zero),
    /// else the budget rule's plan.
    pub fn plan(&self, wait: Duration) -> Plan {
        let plan = self.plan_budgeted(wait).0;
        // A budget of zero asks for no spin at all, however short the wait.
        if self.config.budget() > 0.0 && wait < self.short_threshold(wait) {
            return Plan::Spin {
                margin: wait,
                wanted: plan.wanted(),
            };
        }
        plan
    }

    /// The plan of the budget rule alone, short waits or not, and the length class of the
    /// native part it planned: for the async tail, whose spin holds up the executor's other
    /// tasks and which learns the delay later and elsewhere (see
    /// [`MarginEstimator::record_in`]), and for a sleeper's probe while it has measured
    /// nothing.
    pub(crate) fn plan_budgeted(&self, wait: Duration) -> (Plan, LengthClass) {
        // The native part is `wait - margin`, and the margin depends on the native length:
        // a first guess from the whole wait settles it. The guess is kept within the budget
        // (a margin passes it by no more than the floor of recent oversleeps), or a tail
        // longer than the wait would send the lookup to the bucket of sleeps near zero.
        let budget = wait.mul_f64(self.config.budget());
        let native = wait.saturating_sub(self.margin_for_native(wait).min(budget));
        let bucket = bucket_of(native);
        let class = LengthClass(bucket as u8);
        let Evidence {
            window,
            wanted,
            floor,
        } = self.evidence(bucket);
        // The most margin that keeps the spin within the budget for 99 of 100 recent
        // native parts; none at all for a budget of zero.
        let most = match window {
            Some(_) if !budget.is_zero() => (budget + floor).min(wait),
            _ => budget,
        };
        if wanted <= most {
            return (Plan::Hybrid { margin: wanted }, class);
        }
        let (tail, headroom) = (self.config.tail(), self.config.headroom());
        let plan = match window {
            None if most.is_zero() => Plan::Native { wanted },
            // Nothing measured yet: spin what the budget allows until there is.
            None => Plan::Capped {
                margin: most,
                wanted,
            },
            Some(window) => match margin_within(
                window,
                saturating_nanos(most),
                CAPPED_TAIL.min(tail),
                headroom,
            ) {
                Some(nanos) => Plan::Capped {
                    margin: Duration::from_nanos(nanos),
                    wanted,
                },
                // Every recent oversleep is longer than the budget and its floor (or than the
                // wait itself, which caps them): ending the native part that much early
                // costs no spin on any of them, and ends each such wait that much sooner.
                None if !most.is_zero() => Plan::Capped {
                    margin: most,
                    wanted,
                },
                None => Plan::Native { wanted },
            },
        };
        (plan, class)
    }

    /// How many times a window found the level of its oversleep moved (the median of its
    /// newest hundred samples away from the hundred before's by more than twice their
    /// interquartile range) and forgot all but its newest 40 samples.
    pub fn level_shifts(&self) -> u64 {
        self.level_shifts
    }

    /// How many samples the estimator holds now, over all sleep lengths.
    pub fn samples(&self) -> usize {
        self.buckets.iter().map(|b| b.sorted().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_a_factor_of_four_apart() {
        let us = Duration::from_micros;
        assert_eq!(bucket_of(Duration::ZERO), 0);
        assert_eq!(bucket_of(us(15)), 0);
        assert_eq!(bucket_of(us(16)), 1);
        assert_eq!(bucket_of(us(63)), 1);
        assert_eq!(bucket_of(us(64)), 2);
        assert_eq!(bucket_of(us(1_000)), 3);
        assert_eq!(bucket_of(us(1_024)), 4);
        assert_eq!(bucket_of(Duration::from_secs(3600)), BUCKETS - 1);
        assert_eq!(bucket_of(Duration::MAX), BUCKETS - 1);
    }
}
