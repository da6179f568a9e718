//! One method's figure over K rounds, with its interval: the median of the rounds' p50, p99
//! or p99.9, or the mean CPU per wait over all the rounds' waits.

use super::bootstrap::{self, Interval, Settings};
use super::quantile::median;
use serde::{Deserialize, Serialize};

/// What the intervals need of one method's round: how many waits it measured, and the
/// figures read from them (a round's percentiles come from its own histogram). The JSON
/// export carries each result's rounds as these, so that `punctual report` can test them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Round {
    /// Waits measured in the round; 0 for a round that measured none (stopped early, or a
    /// method that could not run), whose figures are then ignored.
    pub waits: u64,
    /// Median lateness.
    pub p50_ns: u64,
    /// 99th percentile of lateness.
    pub p99_ns: u64,
    /// 99.9th percentile of lateness.
    pub p999_ns: u64,
    /// CPU time per wait.
    pub cpu_ns_per_wait: u64,
}

/// Which of a round's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    P50,
    P99,
    P999,
    /// CPU per wait: a mean over waits, where the others are the median over rounds.
    Cpu,
}

impl Figure {
    pub fn label(self) -> &'static str {
        match self {
            Figure::P50 => "p50",
            Figure::P99 => "p99",
            Figure::P999 => "p99.9",
            Figure::Cpu => "CPU",
        }
    }
}

impl Round {
    /// The round's `figure`, `None` when it measured no wait.
    pub fn value(&self, figure: Figure) -> Option<f64> {
        if self.waits == 0 {
            return None;
        }
        Some(match figure {
            Figure::P50 => self.p50_ns,
            Figure::P99 => self.p99_ns,
            Figure::P999 => self.p999_ns,
            Figure::Cpu => self.cpu_ns_per_wait,
        } as f64)
    }
}

/// A figure over rounds, and how sure it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The figure over every round that measured waits.
    pub value: f64,
    /// The rounds it was read from (rounds without waits are left out).
    pub rounds: usize,
    /// Its confidence interval; `None` for one round, where there is nothing to resample.
    pub interval: Option<Interval>,
}

/// `figure` over `rounds` at the centre the module docs give: the median of the rounds'
/// percentiles, or CPU per wait over all their waits. `None` when no round measured a wait.
pub fn estimate(rounds: &[Round], figure: Figure, settings: &Settings) -> Option<Estimate> {
    let measured: Vec<Round> = rounds.iter().copied().filter(|r| r.waits > 0).collect();
    let all: Vec<usize> = (0..measured.len()).collect();
    let value = centre(&measured, &all, figure)?;
    let interval = bootstrap::interval(measured.len(), settings, |drawn| {
        centre(&measured, drawn, figure)
    });
    Some(Estimate {
        value,
        rounds: measured.len(),
        interval,
    })
}

/// The median of one value per round (a round's figure that is neither a percentile of
/// waits nor CPU per wait: a byte count, say), with its interval from the same bootstrap.
/// `None` for no values.
pub fn median_over(values: &[f64], settings: &Settings) -> Option<Estimate> {
    let value = median(&mut values.to_vec())?;
    let interval = bootstrap::interval(values.len(), settings, |drawn| {
        median(&mut drawn.iter().map(|&i| values[i]).collect::<Vec<f64>>())
    });
    Some(Estimate {
        value,
        rounds: values.len(),
        interval,
    })
}

/// `figure` over the rounds at `drawn` (indices into `rounds`, repeats counted).
pub fn centre(rounds: &[Round], drawn: &[usize], figure: Figure) -> Option<f64> {
    match figure {
        Figure::Cpu => mean_per_wait(drawn.iter().map(|&i| &rounds[i])),
        _ => median(
            &mut drawn
                .iter()
                .filter_map(|&i| rounds[i].value(figure))
                .collect::<Vec<f64>>(),
        ),
    }
}

/// CPU per wait over all the waits of `rounds`: each round's mean weighted by its waits.
pub fn mean_per_wait<'a>(rounds: impl Iterator<Item = &'a Round>) -> Option<f64> {
    let (cpu, waits) = rounds.fold((0.0, 0.0), |(cpu, waits), r| {
        let w = r.waits as f64;
        (cpu + r.cpu_ns_per_wait as f64 * w, waits + w)
    });
    (waits > 0.0).then(|| cpu / waits)
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::{lognormal_rounds, Normal};
    use super::*;

    fn round(waits: u64, p99_ns: u64, cpu_ns_per_wait: u64) -> Round {
        Round {
            waits,
            p50_ns: p99_ns / 4,
            p99_ns,
            p999_ns: p99_ns * 2,
            cpu_ns_per_wait,
        }
    }

    #[test]
    fn one_round_is_its_own_figure_with_no_interval() {
        let e = estimate(
            &[round(1000, 158_000, 900)],
            Figure::P99,
            &Settings::default(),
        )
        .unwrap();
        assert_eq!((e.value, e.rounds, e.interval), (158_000.0, 1, None));
    }

    #[test]
    fn rounds_without_waits_are_left_out() {
        let rounds = [round(0, 1, 1), round(1000, 100, 10), round(0, 5, 5)];
        let e = estimate(&rounds, Figure::P99, &Settings::default()).unwrap();
        assert_eq!((e.value, e.rounds, e.interval), (100.0, 1, None));
        assert_eq!(
            estimate(&[round(0, 1, 1)], Figure::P99, &Settings::default()),
            None
        );
        assert_eq!(estimate(&[], Figure::Cpu, &Settings::default()), None);
    }

    #[test]
    fn cpu_is_the_mean_over_all_waits() {
        let rounds = [round(1000, 1, 100), round(3000, 1, 200)];
        let e = estimate(&rounds, Figure::Cpu, &Settings::default()).unwrap();
        assert_eq!(e.value, 175.0);
        let i = e.interval.unwrap();
        assert!(i.low >= 100.0 && i.high <= 200.0 && i.contains(175.0));
        assert_eq!(i.reach, Some(0.5));
    }

    #[test]
    fn tied_rounds_give_a_point_interval() {
        let rounds = vec![round(1000, 500, 7); 8];
        let e = estimate(&rounds, Figure::P999, &Settings::default()).unwrap();
        let i = e.interval.unwrap();
        assert_eq!(
            (e.value, i.low, i.high, i.reach),
            (1000.0, 1000.0, 1000.0, None)
        );
    }

    #[test]
    fn a_median_over_plain_values_has_an_interval_from_two() {
        let settings = Settings::default();
        assert_eq!(median_over(&[], &settings), None);
        let one = median_over(&[96.0], &settings).unwrap();
        assert_eq!((one.value, one.interval), (96.0, None));
        let e = median_over(&[96.0, -8.0, 120.0], &settings).unwrap();
        let i = e.interval.unwrap();
        assert_eq!((e.value, e.rounds), (96.0, 3));
        assert!(i.low >= -8.0 && i.high <= 120.0 && i.contains(96.0));
    }

    #[test]
    fn the_median_is_not_moved_by_one_slow_round() {
        let mut rounds = vec![round(1000, 100, 1); 6];
        rounds.push(round(1000, 1_000_000, 1));
        let e = estimate(&rounds, Figure::P99, &Settings::default()).unwrap();
        assert_eq!(e.value, 100.0);
    }

    /// The interval of a median over 10 rounds holds the population's median in about the
    /// confidence's share of seeded trials.
    #[test]
    fn intervals_hold_the_true_median_about_95_percent_of_the_time() {
        let truth = Normal {
            mean: 11.0,
            sd: 0.4,
        };
        let held = (0..200u64)
            .filter(|&seed| {
                let rounds = lognormal_rounds(seed, 10, truth);
                let e = estimate(&rounds, Figure::P99, &Settings::default()).unwrap();
                e.interval.unwrap().contains(truth.mean.exp())
            })
            .count();
        assert!((176..=198).contains(&held), "{held} of 200");
    }
}
