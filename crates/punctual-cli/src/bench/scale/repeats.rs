//! The scale mode over K rounds (`--repeat K`): each round's figures of one method, the
//! figures over the rounds with their intervals, and the paired ratios of one of ours to
//! its tokio peer.
//!
//! A round here is one fresh process per method at one N (or under the server workload),
//! the methods interleaved inside it (see `docs/intervals.md`), so round `i` of two
//! methods saw the same host. The statistics are `crate::intervals`': this file only hands
//! it each round's figures.

use serde::{Deserialize, Serialize};

use crate::bench::rounds::Bounded;
use crate::intervals::bootstrap::{Interval, Settings};
use crate::intervals::figure::{self, Figure, Round};
use crate::intervals::paired::{self, Ratio};

/// One method's figures in one round: what its worker process measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaleRound {
    /// Timers whose lateness the round measured (fired, under the server workload); 0
    /// leaves the lateness figures out of the round.
    pub samples: u64,
    /// The timers the CPU figures are per: `samples` for the fire workload, the timeouts
    /// the churn registered for the server workload.
    pub timers: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub cpu_ns_per_timer: Option<u64>,
    pub driver_cpu_ns_per_timer: Option<u64>,
    /// Resident memory grown per timer: the row's `rss_bytes_per_timer` (fire) or
    /// `rss_bytes_per_pending` (server).
    pub rss_bytes: Option<i64>,
    pub timer_bytes: u64,
}

/// A method's figures over its rounds, each with its interval; a figure absent where the
/// rounds had none to give (tokio's driver CPU, resident memory below 1,000 timers).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScaleOverRounds {
    /// The rounds the figures are read from.
    pub rounds: usize,
    /// The median over the rounds of each round's percentile.
    pub p50_ns: Option<Bounded>,
    pub p99_ns: Option<Bounded>,
    pub p999_ns: Option<Bounded>,
    /// The mean over every round's timers.
    pub cpu_ns_per_timer: Option<Bounded>,
    pub driver_cpu_ns_per_timer: Option<Bounded>,
    /// The median over the rounds.
    pub rss_bytes: Option<Bounded>,
    pub timer_bytes: Option<Bounded>,
}

/// The figures of the table's intervals block, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleFigure {
    P50,
    P99,
    P999,
    Cpu,
    DriverCpu,
    Rss,
    TimerBytes,
}

impl ScaleOverRounds {
    /// The figures of `rounds` at `settings`; `None` for fewer than 2 rounds.
    pub fn of(rounds: &[ScaleRound], settings: &Settings) -> Option<ScaleOverRounds> {
        if rounds.len() < 2 {
            return None;
        }
        let lateness = lateness_rounds(rounds);
        let at = |rounds: &[Round], figure| {
            figure::estimate(rounds, figure, settings).and_then(|e| Bounded::of(&e))
        };
        let median =
            |values: Vec<f64>| figure::median_over(&values, settings).and_then(|e| Bounded::of(&e));
        Some(ScaleOverRounds {
            rounds: rounds.len(),
            p50_ns: at(&lateness, Figure::P50),
            p99_ns: at(&lateness, Figure::P99),
            p999_ns: at(&lateness, Figure::P999),
            cpu_ns_per_timer: at(&cost_rounds(rounds, |r| r.cpu_ns_per_timer), Figure::Cpu),
            driver_cpu_ns_per_timer: at(
                &cost_rounds(rounds, |r| r.driver_cpu_ns_per_timer),
                Figure::Cpu,
            ),
            rss_bytes: median(
                rounds
                    .iter()
                    .filter_map(|r| r.rss_bytes)
                    .map(|b| b as f64)
                    .collect(),
            ),
            timer_bytes: median(rounds.iter().map(|r| r.timer_bytes as f64).collect()),
        })
    }

    pub fn get(&self, figure: ScaleFigure) -> Option<&Bounded> {
        match figure {
            ScaleFigure::P50 => self.p50_ns.as_ref(),
            ScaleFigure::P99 => self.p99_ns.as_ref(),
            ScaleFigure::P999 => self.p999_ns.as_ref(),
            ScaleFigure::Cpu => self.cpu_ns_per_timer.as_ref(),
            ScaleFigure::DriverCpu => self.driver_cpu_ns_per_timer.as_ref(),
            ScaleFigure::Rss => self.rss_bytes.as_ref(),
            ScaleFigure::TimerBytes => self.timer_bytes.as_ref(),
        }
    }

    /// The shortest of the intervals that the rounds cannot make as sure as asked.
    pub fn short_interval(&self) -> Option<Interval> {
        [
            self.p50_ns,
            self.p99_ns,
            self.p999_ns,
            self.cpu_ns_per_timer,
            self.driver_cpu_ns_per_timer,
            self.rss_bytes,
            self.timer_bytes,
        ]
        .into_iter()
        .flatten()
        .map(|b| b.interval())
        .find(|i| i.reach.is_some())
    }
}

/// The rounds as the intervals module takes them, for the lateness percentiles.
pub fn lateness_rounds(rounds: &[ScaleRound]) -> Vec<Round> {
    rounds
        .iter()
        .map(|r| Round {
            waits: r.samples,
            p50_ns: r.p50_ns,
            p99_ns: r.p99_ns,
            p999_ns: r.p999_ns,
            cpu_ns_per_wait: 0,
        })
        .collect()
}

/// The rounds as the intervals module takes them, for one CPU figure (`cpu` of a round):
/// its mean over every round's timers. A round without the figure counts no timer.
pub fn cost_rounds(rounds: &[ScaleRound], cpu: impl Fn(&ScaleRound) -> Option<u64>) -> Vec<Round> {
    rounds
        .iter()
        .map(|r| Round {
            waits: cpu(r).map_or(0, |_| r.timers),
            cpu_ns_per_wait: cpu(r).unwrap_or(0),
            ..Round::default()
        })
        .collect()
}

/// `ours`' p50, p99 and CPU per timer over `peer`'s, from the rounds they shared (`ours[i]`
/// and `peer[i]` the same round); a figure either lacks, or rounds that do not pair, are
/// left out.
pub fn ratios(ours: &[ScaleRound], peer: &[ScaleRound], settings: &Settings) -> Vec<Ratio> {
    let (a, b) = (lateness_rounds(peer), lateness_rounds(ours));
    let mut ratios: Vec<Ratio> = [Figure::P50, Figure::P99]
        .into_iter()
        .filter_map(|figure| paired::ratio(&a, &b, figure, settings).ok().flatten())
        .collect();
    let cpu = |rounds| cost_rounds(rounds, |r| r.cpu_ns_per_timer);
    if let Ok(Some(ratio)) = paired::ratio(&cpu(peer), &cpu(ours), Figure::Cpu, settings) {
        ratios.push(ratio);
    }
    ratios
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(p99_ns: u64, cpu_ns: u64, driver: Option<u64>) -> ScaleRound {
        ScaleRound {
            samples: 1000,
            timers: 1000,
            p50_ns: p99_ns / 4,
            p99_ns,
            p999_ns: p99_ns * 2,
            cpu_ns_per_timer: Some(cpu_ns),
            driver_cpu_ns_per_timer: driver,
            rss_bytes: None,
            timer_bytes: 96,
        }
    }

    #[test]
    fn one_round_has_no_figures_over_rounds() {
        let settings = Settings::default();
        assert_eq!(ScaleOverRounds::of(&[round(10, 5, None)], &settings), None);
        let rounds = [
            round(100, 5, None),
            round(300, 7, None),
            round(200, 9, None),
        ];
        let over = ScaleOverRounds::of(&rounds, &settings).unwrap();
        assert_eq!(over.rounds, 3);
        assert_eq!(over.p99_ns.unwrap().value, 200.0);
        assert_eq!(over.cpu_ns_per_timer.unwrap().value, 7.0);
        assert_eq!(over.timer_bytes.unwrap().value, 96.0);
        assert_eq!((over.driver_cpu_ns_per_timer, over.rss_bytes), (None, None));
        assert!(over.short_interval().is_some());
    }

    #[test]
    fn a_ratio_is_ours_over_the_peers_in_the_same_round() {
        let settings = Settings::default();
        let peer = [
            round(100, 10, None),
            round(400, 20, None),
            round(200, 30, None),
        ];
        let ours: Vec<ScaleRound> = peer
            .iter()
            .map(|r| round(r.p99_ns / 2, r.cpu_ns_per_timer.unwrap() * 3, Some(1)))
            .collect();
        let ratios = ratios(&ours, &peer, &settings);
        let figures: Vec<Figure> = ratios.iter().map(|r| r.figure).collect();
        assert_eq!(figures, [Figure::P50, Figure::P99, Figure::Cpu]);
        assert_eq!(ratios[1].estimate.value, 0.5);
        assert!((ratios[2].estimate.value - 3.0).abs() < 1e-12);
        assert!(super::ratios(&ours[..2], &peer, &settings).is_empty());
    }
}
