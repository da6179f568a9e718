//! The ratio of method B's figure to method A's from the rounds they shared, and what it
//! shows.
//!
//! Both methods ran interleaved in each round, so a round's slow spell hits both: the ratio
//! is taken inside each round first, where that spell cancels, and the rounds' ratios are
//! resampled as pairs (one index draws both methods' round). For a percentile the ratio is
//! the median of the rounds' ratios, on a log scale (so that A against B is exactly the
//! reciprocal of B against A); for CPU per wait it is the ratio of the two means over the
//! same rounds' waits.

use super::bootstrap::{self, Settings};
use super::figure::{mean_per_wait, Estimate, Figure, Round};
use super::quantile::median;

/// What a ratio of B to A shows, lower being better (lateness and CPU alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval is below 1.
    Better,
    /// The whole interval is above 1.
    Worse,
    /// The interval holds 1, or there is none (one round).
    NoDifferenceShown,
}

impl Verdict {
    /// From an estimate of B over A.
    pub fn of(ratio: &Estimate) -> Verdict {
        match ratio.interval {
            Some(i) if i.high < 1.0 => Verdict::Better,
            Some(i) if i.low > 1.0 => Verdict::Worse,
            _ => Verdict::NoDifferenceShown,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::NoDifferenceShown => "no difference shown",
        }
    }
}

/// B's figure over A's, from paired rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub figure: Figure,
    /// B over A, with its interval.
    pub estimate: Estimate,
    /// Rounds left out: either method measured no wait in them, or (for a percentile) one
    /// method's figure was 0, which has no ratio.
    pub left_out: usize,
}

impl Ratio {
    pub fn verdict(&self) -> Verdict {
        Verdict::of(&self.estimate)
    }
}

/// B's `figure` over A's; `a[i]` and `b[i]` are the same round. `Ok(None)` when no round
/// has both figures; an error when the two do not have the same number of rounds.
pub fn ratio(
    a: &[Round],
    b: &[Round],
    figure: Figure,
    settings: &Settings,
) -> Result<Option<Ratio>, String> {
    if a.len() != b.len() {
        return Err(format!(
            "paired rounds: the first method has {} rounds, the second {}",
            a.len(),
            b.len()
        ));
    }
    let both = a.iter().zip(b).filter(|(a, b)| a.waits > 0 && b.waits > 0);
    let (value, rounds, interval) = if figure == Figure::Cpu {
        let pairs: Vec<(Round, Round)> = both.map(|(a, b)| (*a, *b)).collect();
        let over = |drawn: &[usize]| {
            let a = mean_per_wait(drawn.iter().map(|&i| &pairs[i].0))?;
            let b = mean_per_wait(drawn.iter().map(|&i| &pairs[i].1))?;
            (a > 0.0).then(|| b / a)
        };
        let all: Vec<usize> = (0..pairs.len()).collect();
        let Some(value) = over(&all) else {
            return Ok(None);
        };
        let interval = bootstrap::interval(pairs.len(), settings, over);
        (value, pairs.len(), interval)
    } else {
        let logs: Vec<f64> = both
            .filter_map(|(a, b)| Some((b.value(figure)? / a.value(figure)?).ln()))
            .filter(|r| r.is_finite())
            .collect();
        let over = |drawn: &[usize]| {
            median(&mut drawn.iter().map(|&i| logs[i]).collect::<Vec<f64>>()).map(f64::exp)
        };
        let all: Vec<usize> = (0..logs.len()).collect();
        let Some(value) = over(&all) else {
            return Ok(None);
        };
        let interval = bootstrap::interval(logs.len(), settings, over);
        (value, logs.len(), interval)
    };
    Ok(Some(Ratio {
        figure,
        estimate: Estimate {
            value,
            rounds,
            interval,
        },
        left_out: a.len() - rounds,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::{lognormal_rounds, Draws, Normal};
    use super::*;

    const SPREAD: Normal = Normal {
        mean: 11.0,
        sd: 0.4,
    };

    fn ratio_of(a: &[Round], b: &[Round], figure: Figure) -> Ratio {
        ratio(a, b, figure, &Settings::default()).unwrap().unwrap()
    }

    /// Two methods drawn from one distribution: the interval of their ratio holds 1 in
    /// about 95% of seeded trials, for a percentile and for CPU.
    #[test]
    fn identical_distributions_hold_1_about_95_percent_of_the_time() {
        for figure in [Figure::P99, Figure::Cpu] {
            let held = (0..200u64)
                .filter(|&seed| {
                    let a = lognormal_rounds(2 * seed, 10, SPREAD);
                    let b = lognormal_rounds(2 * seed + 1, 10, SPREAD);
                    ratio_of(&a, &b, figure)
                        .estimate
                        .interval
                        .unwrap()
                        .contains(1.0)
                })
                .count();
            assert!((176..=198).contains(&held), "{figure:?}: {held} of 200");
        }
    }

    /// B's p99 twice A's, over 12 rounds each hit by a slow spell (a shift of the log with a
    /// spread of 1, four times each method's own): found every time, and the interval holds
    /// the 2 about as often as its confidence says.
    #[test]
    fn a_planted_2x_difference_is_found() {
        let mut held = 0;
        for seed in 0..20u64 {
            let mut draws = Draws::new(seed);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..12 {
                let host = draws.normal(Normal { mean: 0.0, sd: 1.0 });
                let mut round = |shift: f64| {
                    let mut r = draws.round(Normal {
                        mean: SPREAD.mean + host + shift,
                        sd: 0.25,
                    });
                    r.cpu_ns_per_wait = (r.cpu_ns_per_wait as f64 * shift.exp()) as u64;
                    r
                };
                a.push(round(0.0));
                b.push(round(2f64.ln()));
            }
            for figure in [Figure::P99, Figure::Cpu] {
                let r = ratio_of(&a, &b, figure);
                assert_eq!(r.verdict(), Verdict::Worse, "seed {seed} {figure:?}");
                assert_eq!(ratio_of(&b, &a, figure).verdict(), Verdict::Better);
                held += usize::from(r.estimate.interval.unwrap().contains(2.0));
            }
        }
        assert!(held >= 36, "{held} of 40");
    }

    #[test]
    fn a_against_b_is_the_reciprocal_of_b_against_a() {
        let a = lognormal_rounds(1, 6, SPREAD);
        let b = lognormal_rounds(2, 6, SPREAD);
        let (ab, ba) = (ratio_of(&a, &b, Figure::P50), ratio_of(&b, &a, Figure::P50));
        assert!((ab.estimate.value * ba.estimate.value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn one_round_shows_no_difference() {
        let a = lognormal_rounds(1, 1, SPREAD);
        let mut b = a.clone();
        b[0].p99_ns *= 3;
        let r = ratio_of(&a, &b, Figure::P99);
        assert!((r.estimate.value - 3.0).abs() < 1e-12);
        assert_eq!(r.estimate.interval, None);
        assert_eq!(r.verdict(), Verdict::NoDifferenceShown);
    }

    #[test]
    fn rounds_without_both_figures_are_left_out() {
        let mut a = lognormal_rounds(1, 4, SPREAD);
        let mut b = lognormal_rounds(2, 4, SPREAD);
        a[0].waits = 0;
        b[1].p99_ns = 0;
        let r = ratio_of(&a, &b, Figure::P99);
        assert_eq!((r.estimate.rounds, r.left_out), (2, 2));
        let r = ratio_of(&a, &b, Figure::Cpu);
        assert_eq!((r.estimate.rounds, r.left_out), (3, 1));
        for round in &mut a {
            round.waits = 0;
        }
        assert_eq!(ratio(&a, &b, Figure::P99, &Settings::default()), Ok(None));
        assert!(ratio(&a[..3], &b, Figure::P99, &Settings::default())
            .unwrap_err()
            .contains("3 rounds, the second 4"));
    }

    #[test]
    fn a_method_with_no_cpu_has_no_cpu_ratio() {
        let mut a = lognormal_rounds(1, 4, SPREAD);
        let b = lognormal_rounds(2, 4, SPREAD);
        for round in &mut a {
            round.cpu_ns_per_wait = 0;
        }
        assert_eq!(ratio(&a, &b, Figure::Cpu, &Settings::default()), Ok(None));
    }
}
