//! The server workload's timeouts, drawn: each one's length (log-uniform from
//! [`SHORTEST`] to [`LONGEST`]), whether it is cancelled ([`CANCELLED_SHARE`] of them) and
//! when, and when the churn registers it. Pure arithmetic on the bench's seeded [`Rng`], so
//! that the real run and the mock draw the same timeouts from the same seed.

use std::time::Duration;

use crate::rng::Rng;

/// The shortest timeout drawn.
pub const SHORTEST: Duration = Duration::from_millis(1);
/// The longest timeout drawn.
pub const LONGEST: Duration = Duration::from_secs(60);
/// The share of timeouts cancelled before their deadline, as a server's answer comes first.
pub const CANCELLED_SHARE: f64 = 0.9;

/// How many timeouts, how fast, for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Timeouts registered at once before the churn starts: the pending set.
    pub pending: u64,
    /// Registrations a second during the churn.
    pub churn_per_s: u64,
    /// How long the churn runs.
    pub duration: Duration,
}

impl Plan {
    /// Registrations the churn makes: one every `1 s / churn_per_s`, from the churn's
    /// start (the first at 0) to before its end.
    pub fn churn_count(&self) -> u64 {
        if self.churn_per_s == 0 {
            return 0;
        }
        // k is registered at floor(k * 1e9 / churn) ns, which is before the end exactly
        // when k * 1e9 < duration_ns * churn.
        let span = self.duration.as_nanos() * u128::from(self.churn_per_s);
        u64::try_from(span.div_ceil(1_000_000_000)).unwrap_or(u64::MAX)
    }

    /// When the churn's `k`-th registration is due, in nanoseconds from the churn's start.
    pub fn churn_due_ns(&self, k: u64) -> u64 {
        let ns = u128::from(k) * 1_000_000_000 / u128::from(self.churn_per_s.max(1));
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// Every timeout of the run: the pending set, then the churn's.
    pub fn total(&self) -> u64 {
        self.pending.saturating_add(self.churn_count())
    }
}

/// One timeout as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    /// From its registration to its deadline.
    pub length_ns: u64,
    /// From its registration to its cancellation, before the deadline; `None` when it is
    /// left to fire.
    pub cancel_after_ns: Option<u64>,
}

/// Draws timeouts, one after another, from a seed.
#[derive(Debug, Clone)]
pub struct Draw(Rng);

impl Draw {
    pub fn new(seed: u64) -> Draw {
        Draw(Rng::new(seed))
    }

    /// The next timeout: its length log-uniform in `[SHORTEST, LONGEST]` (to the
    /// microsecond), cancelled with probability [`CANCELLED_SHARE`] at a uniform time in
    /// `[0, length)`.
    pub fn next(&mut self) -> Timeout {
        let (lo, hi) = (SHORTEST.as_nanos() as f64, LONGEST.as_nanos() as f64);
        let length = (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp();
        // Whole microseconds: `ln` and `exp` may differ in their last bit from one libm to
        // another, and a length a nanosecond apart would draw a different cancellation
        // time, so the mock's counts would differ between platforms.
        let length_ns = ((length / 1e3).round() as u64 * 1000)
            .clamp(SHORTEST.as_nanos() as u64, LONGEST.as_nanos() as u64);
        let cancel_after_ns = (self.unit() < CANCELLED_SHARE).then(|| self.0.below(length_ns));
        Timeout {
            length_ns,
            cancel_after_ns,
        }
    }

    /// Uniform in `[0, 1)`, from the generator's top 53 bits.
    fn unit(&mut self) -> f64 {
        (self.0.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_stay_within_bounds_and_spread_log_uniformly() {
        let mut draw = Draw::new(7);
        let n = 100_000;
        let lengths: Vec<u64> = (0..n).map(|_| draw.next().length_ns).collect();
        let (lo, hi) = (SHORTEST.as_nanos() as u64, LONGEST.as_nanos() as u64);
        assert!(lengths.iter().all(|&l| (lo..=hi).contains(&l)));
        // Log-uniform: each decade of the range holds its share, log10(60 s / 1 ms) = 4.78
        // decades; 1 ms to 10 ms is 1/4.78 of them.
        let first_decade = lengths.iter().filter(|&&l| l < 10_000_000).count() as f64 / n as f64;
        let share = 1.0 / (60_000f64).log10();
        assert!(
            (first_decade - share).abs() < 0.01,
            "{first_decade} vs {share}"
        );
        let median = {
            let mut sorted = lengths.clone();
            sorted.sort_unstable();
            sorted[n / 2] as f64
        };
        // The median of a log-uniform draw is the geometric mean of its bounds, 245 ms.
        let geometric = ((lo as f64) * (hi as f64)).sqrt();
        assert!(
            (median / geometric - 1.0).abs() < 0.05,
            "{median} vs {geometric}"
        );
    }

    #[test]
    fn about_nine_in_ten_are_cancelled_before_their_deadline() {
        let mut draw = Draw::new(0x5eed);
        let n = 100_000;
        let timeouts: Vec<Timeout> = (0..n).map(|_| draw.next()).collect();
        let cancelled = timeouts
            .iter()
            .filter(|t| t.cancel_after_ns.is_some())
            .count() as f64
            / n as f64;
        assert!((cancelled - CANCELLED_SHARE).abs() < 0.005, "{cancelled}");
        assert!(timeouts
            .iter()
            .all(|t| t.cancel_after_ns.is_none_or(|c| c < t.length_ns)));
    }

    #[test]
    fn the_same_seed_draws_the_same_timeouts() {
        let (mut a, mut b) = (Draw::new(3), Draw::new(3));
        assert!((0..1000).all(|_| a.next() == b.next()));
    }

    #[test]
    fn the_churn_schedule_is_exact() {
        let plan = Plan {
            pending: 10,
            churn_per_s: 100_000,
            duration: Duration::from_secs(10),
        };
        assert_eq!(plan.churn_count(), 1_000_000);
        assert_eq!(plan.total(), 1_000_010);
        assert_eq!(plan.churn_due_ns(0), 0);
        assert_eq!(plan.churn_due_ns(1), 10_000);
        assert_eq!(plan.churn_due_ns(999_999), 9_999_990_000);
        // Three a second for a second and a half: due at 0, 333,333,333 ns, 666,666,666,
        // 1 s and 1,333,333,333 ns, all before 1.5 s.
        let thirds = Plan {
            pending: 0,
            churn_per_s: 3,
            duration: Duration::from_millis(1500),
        };
        assert_eq!(thirds.churn_count(), 5);
        assert_eq!(thirds.churn_due_ns(1), 333_333_333);
        assert_eq!(thirds.churn_due_ns(4), 1_333_333_333);
        // A registration due exactly at the end is not made.
        let exact = Plan {
            pending: 0,
            churn_per_s: 4,
            duration: Duration::from_secs(1),
        };
        assert_eq!(exact.churn_count(), 4);
        assert!(exact.churn_due_ns(exact.churn_count() - 1) < 1_000_000_000);
        let none = Plan {
            churn_per_s: 0,
            ..exact
        };
        assert_eq!(none.churn_count(), 0);
    }
}
