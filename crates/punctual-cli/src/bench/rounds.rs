//! The wait table over K rounds (`--repeat K`): each method's figures over its rounds with
//! their intervals, as the export holds them, and the paired comparisons of two methods.
//!
//! The statistics are `crate::intervals`'; this file only hands it each round's figures and
//! keeps what it answers. A round here is one pass of the run's batch loop over every
//! method at one wait (see `run.rs`), so round `i` of two methods at one wait saw the same
//! host, which is what pairing them needs.

use serde::{Deserialize, Serialize};

use super::recommend;
use super::stats::Summary;
use super::MethodResult;
use crate::cli::ComparePair;
use crate::intervals::bootstrap::{Interval, Settings};
use crate::intervals::figure::{self, Estimate, Figure, Round};
use crate::intervals::format;
use crate::intervals::paired::{self, Ratio};
use crate::units::wait_label;

/// One figure over the rounds and its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounded {
    /// The figure over the rounds: the median of the rounds' percentile, or for CPU per
    /// wait the mean over every round's waits.
    pub value: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// The confidence asked (`--confidence`), as a share.
    pub confidence: f64,
    /// Where the rounds are too few for `confidence`: the most they support, as a share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<f64>,
}

impl Bounded {
    /// The estimate's figure and interval; `None` where it has no interval (one round).
    pub fn of(estimate: &Estimate) -> Option<Bounded> {
        let interval = estimate.interval?;
        Some(Bounded {
            value: estimate.value,
            low: interval.low,
            high: interval.high,
            confidence: interval.confidence,
            reach: interval.reach,
        })
    }

    /// As the interval module's estimate over `rounds` rounds, to format it.
    pub fn estimate(&self, rounds: usize) -> Estimate {
        Estimate {
            value: self.value,
            rounds,
            interval: Some(self.interval()),
        }
    }

    pub fn interval(&self) -> Interval {
        Interval {
            low: self.low,
            high: self.high,
            confidence: self.confidence,
            reach: self.reach,
        }
    }
}

/// A method's figures over its rounds at one wait.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OverRounds {
    /// The rounds that measured waits, which the figures are read from.
    pub rounds: usize,
    /// Median lateness; absent where the interval could not be computed.
    pub p50_ns: Option<Bounded>,
    /// 99th percentile of lateness.
    pub p99_ns: Option<Bounded>,
    /// 99.9th percentile of lateness.
    pub p999_ns: Option<Bounded>,
    /// CPU time per wait.
    pub cpu_ns_per_wait: Option<Bounded>,
}

impl OverRounds {
    /// The figures of `rounds` at `settings`; `None` with fewer than 2 rounds that measured
    /// waits, where there is nothing to resample.
    pub fn of(rounds: &[Round], settings: &Settings) -> Option<OverRounds> {
        let measured = rounds.iter().filter(|r| r.waits > 0).count();
        if measured < 2 {
            return None;
        }
        let at = |figure| figure::estimate(rounds, figure, settings).and_then(|e| Bounded::of(&e));
        Some(OverRounds {
            rounds: measured,
            p50_ns: at(Figure::P50),
            p99_ns: at(Figure::P99),
            p999_ns: at(Figure::P999),
            cpu_ns_per_wait: at(Figure::Cpu),
        })
    }

    pub fn get(&self, figure: Figure) -> Option<&Bounded> {
        match figure {
            Figure::P50 => self.p50_ns.as_ref(),
            Figure::P99 => self.p99_ns.as_ref(),
            Figure::P999 => self.p999_ns.as_ref(),
            Figure::Cpu => self.cpu_ns_per_wait.as_ref(),
        }
    }
}

/// What the intervals need of one round's summary.
pub fn round_of(summary: &Summary) -> Round {
    Round {
        waits: summary.lateness.samples,
        p50_ns: summary.lateness.p50_ns,
        p99_ns: summary.lateness.p99_ns,
        p999_ns: summary.lateness.p999_ns,
        cpu_ns_per_wait: summary.cpu_ns_per_wait,
    }
}

/// The rounds of a result, or its whole run as one round when it kept none.
fn rounds_of(r: &MethodResult) -> Vec<Round> {
    if r.rounds.is_empty() {
        vec![round_of(&r.summary)]
    } else {
        r.rounds.clone()
    }
}

/// `first`'s p50, p99 and CPU per wait over `second`'s, from their paired rounds (the same
/// wait, the same run); a figure neither has is left out.
pub fn ratios(first: &MethodResult, second: &MethodResult, settings: &Settings) -> Vec<Ratio> {
    let (a, b) = (rounds_of(second), rounds_of(first));
    [Figure::P50, Figure::P99, Figure::Cpu]
        .into_iter()
        .filter_map(|figure| paired::ratio(&a, &b, figure, settings).ok().flatten())
        .collect()
}

/// The comparison lines of a run: `pair`'s at every wait, or without one, when the run has
/// rounds, the recommended method's against each other method at each wait.
pub fn comparisons(
    results: &[MethodResult],
    pair: Option<ComparePair>,
    settings: &Settings,
) -> Vec<String> {
    let mut waits: Vec<u64> = results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    let with_rounds = results.iter().any(|r| !r.rounds.is_empty());
    let mut lines = Vec::new();
    for wait in waits {
        let at: Vec<&MethodResult> = results.iter().filter(|r| r.wait_ns == wait).collect();
        let find = |name: &str| at.iter().copied().find(|r| r.method == name);
        let pairs: Vec<(&MethodResult, &MethodResult)> = match pair {
            Some(pair) => find(pair.first.name)
                .zip(find(pair.second.name))
                .into_iter()
                .collect(),
            None if with_rounds => match recommend::winner_at(&at) {
                Some(best) => at
                    .iter()
                    .filter(|r| r.method != best.method && r.summary.lateness.samples > 0)
                    .map(|r| (best, *r))
                    .collect(),
                None => Vec::new(),
            },
            None => Vec::new(),
        };
        let label = wait_label(std::time::Duration::from_nanos(wait));
        for (first, second) in pairs {
            let ratios = ratios(first, second, settings);
            if !ratios.is_empty() {
                lines.push(format::comparison(
                    &first.method,
                    &second.method,
                    &label,
                    &ratios,
                ));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(waits: u64, p99_ns: u64) -> Round {
        Round {
            waits,
            p50_ns: p99_ns / 2,
            p99_ns,
            p999_ns: p99_ns * 2,
            cpu_ns_per_wait: 100,
        }
    }

    #[test]
    fn one_round_has_no_figures_over_rounds() {
        let settings = Settings::default();
        assert_eq!(OverRounds::of(&[round(10, 5)], &settings), None);
        assert_eq!(
            OverRounds::of(&[round(10, 5), round(0, 5)], &settings),
            None
        );
        let over = OverRounds::of(&[round(10, 5), round(10, 7), round(10, 9)], &settings).unwrap();
        let p99 = over.p99_ns.unwrap();
        assert_eq!((over.rounds, p99.value), (3, 7.0));
        assert_eq!(p99.reach, Some(0.75));
        assert!(p99.interval().contains(7.0));
    }
}
