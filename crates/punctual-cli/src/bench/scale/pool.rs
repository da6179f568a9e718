//! One table row from the K rounds of one method (`--repeat K`): what the rows of the
//! rounds' worker processes add up to, with each round's figures kept beside it.
//!
//! Counts add up (timers, rounds of N, early wakes, stalls, a server's registrations),
//! extremes are the extreme over the rounds (max, longest stall, worst lag), CPU per timer
//! is the mean over every round's timers, and what one process reads once (a percentile,
//! resident memory, the timer's bytes) is the median over the rounds: the processes' own
//! histograms stay in them, and the median is the figure over rounds the intervals give.

use super::repeats::{ScaleOverRounds, ScaleRound};
use super::server::ServerResult;
use super::ScaleResult;
use crate::bench::stats::Lateness;
use crate::export::json::PercentilePoint;
use crate::intervals::bootstrap::Settings;
use crate::intervals::median;

/// The fire workload's row of `rounds` (one method at one N, in the order measured); one
/// round is its own row, as a run without `--repeat` has it.
pub fn scale(mut rounds: Vec<ScaleResult>, settings: &Settings) -> Option<ScaleResult> {
    if rounds.len() < 2 {
        return rounds.pop();
    }
    let repeats: Vec<ScaleRound> = rounds.iter().map(scale_round).collect();
    let first = rounds[0].clone();
    let weights: Vec<u64> = rounds.iter().map(|r| r.lateness.samples).collect();
    let mut by_round = Vec::new();
    for r in &rounds {
        by_round.extend(r.by_round.iter().copied());
    }
    Some(ScaleResult {
        rounds: rounds.iter().map(|r| r.rounds).sum(),
        lateness: lateness(rounds.iter().map(|r| r.lateness)),
        cpu_ns_per_timer: mean(rounds.iter().map(|r| r.cpu_ns_per_timer), &weights),
        driver_cpu_ns_per_timer: mean(rounds.iter().map(|r| r.driver_cpu_ns_per_timer), &weights),
        driver_fire_lateness_mean_ns: mean(
            rounds.iter().map(|r| r.driver_fire_lateness_mean_ns),
            &weights,
        ),
        driver_fire_lateness_max_ns: rounds
            .iter()
            .filter_map(|r| r.driver_fire_lateness_max_ns)
            .max(),
        stalls: super::stall::Stalls {
            longest_stall_ns: rounds
                .iter()
                .map(|r| r.stalls.longest_stall_ns)
                .max()
                .unwrap_or(0),
            stalls: rounds.iter().map(|r| r.stalls.stalls).sum(),
        },
        by_round,
        rss_bytes_per_timer: middle_i64(rounds.iter().filter_map(|r| r.rss_bytes_per_timer)),
        timer_bytes: middle(rounds.iter().map(|r| r.timer_bytes)).unwrap_or(first.timer_bytes),
        setup_overran: rounds.iter().map(|r| r.setup_overran).sum(),
        executor_floor_ns_per_task: middle(
            rounds.iter().filter_map(|r| r.executor_floor_ns_per_task),
        ),
        lateness_percentiles: percentiles(rounds.iter().map(|r| &r.lateness_percentiles[..])),
        over_rounds: ScaleOverRounds::of(&repeats, settings),
        repeats,
        ..first
    })
}

/// The server workload's row of `rounds` (one method, in the order measured).
pub fn server(mut rounds: Vec<ServerResult>, settings: &Settings) -> Option<ServerResult> {
    if rounds.len() < 2 {
        return rounds.pop();
    }
    let repeats: Vec<ScaleRound> = rounds.iter().map(server_round).collect();
    let first = rounds[0].clone();
    let weights: Vec<u64> = rounds.iter().map(|r| r.registered).collect();
    let sum = |count: fn(&ServerResult) -> u64| rounds.iter().map(count).sum::<u64>();
    let max = |lag: fn(&ServerResult) -> u64| rounds.iter().map(lag).max().unwrap_or(0);
    let mid = |lag: fn(&ServerResult) -> u64| middle(rounds.iter().map(lag)).unwrap_or(0);
    Some(ServerResult {
        registered: sum(|r| r.registered),
        fired: sum(|r| r.fired),
        cancelled: sum(|r| r.cancelled),
        left_pending: sum(|r| r.left_pending),
        not_registered: sum(|r| r.not_registered),
        cancel_too_late: sum(|r| r.cancel_too_late),
        lateness: lateness(rounds.iter().map(|r| r.lateness)),
        cpu_ns_per_timer: mean(rounds.iter().map(|r| r.cpu_ns_per_timer), &weights),
        driver_cpu_ns_per_timer: mean(rounds.iter().map(|r| r.driver_cpu_ns_per_timer), &weights),
        driver_sleeps: driver_sleeps(&rounds),
        pending_peak: mid(|r| r.pending_peak),
        rss_bytes_per_pending: middle_i64(rounds.iter().filter_map(|r| r.rss_bytes_per_pending)),
        timer_bytes: mid(|r| r.timer_bytes),
        registration_lag_max_ns: max(|r| r.registration_lag_max_ns),
        registration_lag_final_ns: mid(|r| r.registration_lag_final_ns),
        cancel_lag_max_ns: max(|r| r.cancel_lag_max_ns),
        cancel_lag_final_ns: mid(|r| r.cancel_lag_final_ns),
        over_rounds: ScaleOverRounds::of(&repeats, settings),
        repeats,
        ..first
    })
}

pub fn scale_round(r: &ScaleResult) -> ScaleRound {
    ScaleRound {
        samples: r.lateness.samples,
        timers: r.lateness.samples,
        p50_ns: r.lateness.p50_ns,
        p99_ns: r.lateness.p99_ns,
        p999_ns: r.lateness.p999_ns,
        cpu_ns_per_timer: r.cpu_ns_per_timer,
        driver_cpu_ns_per_timer: r.driver_cpu_ns_per_timer,
        rss_bytes: r.rss_bytes_per_timer,
        timer_bytes: r.timer_bytes,
    }
}

pub fn server_round(r: &ServerResult) -> ScaleRound {
    ScaleRound {
        samples: r.lateness.samples,
        timers: r.registered,
        p50_ns: r.lateness.p50_ns,
        p99_ns: r.lateness.p99_ns,
        p999_ns: r.lateness.p999_ns,
        cpu_ns_per_timer: r.cpu_ns_per_timer,
        driver_cpu_ns_per_timer: r.driver_cpu_ns_per_timer,
        rss_bytes: r.rss_bytes_per_pending,
        timer_bytes: r.timer_bytes,
    }
}

/// The rounds' lateness blocks as one: counts summed, extremes over all, the mean over
/// every sample, each percentile the median of the rounds' (of those that measured any).
fn lateness(rounds: impl Iterator<Item = Lateness> + Clone) -> Lateness {
    let measured = rounds.clone().filter(|l| l.samples > 0);
    let samples: u64 = measured.clone().map(|l| l.samples).sum();
    let weighted: i128 = measured
        .clone()
        .map(|l| i128::from(l.mean_ns) * i128::from(l.samples))
        .sum();
    let at = |percentile: fn(&Lateness) -> u64| {
        middle(measured.clone().map(|l| percentile(&l))).unwrap_or(0)
    };
    Lateness {
        samples,
        min_ns: measured.clone().map(|l| l.min_ns).min().unwrap_or(0),
        mean_ns: if samples == 0 {
            0
        } else {
            (weighted / i128::from(samples)) as i64
        },
        p50_ns: at(|l| l.p50_ns),
        p90_ns: at(|l| l.p90_ns),
        p99_ns: at(|l| l.p99_ns),
        p999_ns: at(|l| l.p999_ns),
        max_ns: measured.clone().map(|l| l.max_ns).max().unwrap_or(0),
        early: measured.map(|l| l.early).sum(),
    }
}

/// The mean of per-timer figures, each round weighted by its timers; `None` when no round
/// has the figure.
fn mean(values: impl Iterator<Item = Option<u64>>, weights: &[u64]) -> Option<u64> {
    let (total, timers) = values
        .zip(weights)
        .filter_map(|(v, &w)| Some((v? as f64 * w as f64, w as f64)))
        .fold((0.0, 0.0), |(t, n), (v, w)| (t + v, n + w));
    (timers > 0.0).then(|| (total / timers).round() as u64)
}

fn middle(values: impl Iterator<Item = u64>) -> Option<u64> {
    median(&mut values.map(|v| v as f64).collect::<Vec<f64>>()).map(|m| m.round() as u64)
}

fn middle_i64(values: impl Iterator<Item = i64>) -> Option<i64> {
    median(&mut values.map(|v| v as f64).collect::<Vec<f64>>()).map(|m| m.round() as i64)
}

/// Each point the median of the rounds' at that percentile; the rounds' points are at the
/// same percentiles (`export::json::percentiles`), a round without any left out.
fn percentiles<'a>(rounds: impl Iterator<Item = &'a [PercentilePoint]>) -> Vec<PercentilePoint> {
    let rounds: Vec<&[PercentilePoint]> = rounds.filter(|p| !p.is_empty()).collect();
    let Some(first) = rounds.first() else {
        return Vec::new();
    };
    first
        .iter()
        .enumerate()
        .map(|(i, point)| PercentilePoint {
            percentile: point.percentile,
            lateness_ns: middle(
                rounds
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|p| p.lateness_ns),
            )
            .unwrap_or(point.lateness_ns),
        })
        .collect()
}

/// The rounds' driver sleeps a second, averaged (every round's churn is as long).
fn driver_sleeps(rounds: &[ServerResult]) -> Option<crate::bench::scale::server::DriverSleeps> {
    let all: Option<Vec<_>> = rounds.iter().map(|r| r.driver_sleeps).collect();
    let all = all.filter(|all| !all.is_empty())?;
    let n = all.len() as f64;
    Some(crate::bench::scale::server::DriverSleeps {
        per_s: all.iter().map(|d| d.per_s).sum::<f64>() / n,
        interrupted_per_s: all.iter().map(|d| d.interrupted_per_s).sum::<f64>() / n,
        lock_waits_per_s: all.iter().map(|d| d.lock_waits_per_s).sum::<f64>() / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(samples: u64, p99_ns: u64, max_ns: u64) -> Lateness {
        Lateness {
            samples,
            min_ns: -1,
            mean_ns: 10,
            p50_ns: 5,
            p90_ns: 8,
            p99_ns,
            p999_ns: p99_ns,
            max_ns,
            early: 1,
        }
    }

    #[test]
    fn counts_add_up_extremes_stay_and_percentiles_are_medians() {
        let l = lateness(
            [
                block(10, 100, 500),
                block(30, 300, 200),
                block(0, 9, 9),
                block(10, 200, 300),
            ]
            .into_iter(),
        );
        assert_eq!((l.samples, l.early, l.max_ns, l.min_ns), (50, 3, 500, -1));
        assert_eq!((l.p99_ns, l.mean_ns), (200, 10));
        assert_eq!(
            mean([Some(10), None, Some(40)].into_iter(), &[3, 5, 1]),
            Some(18)
        );
        assert_eq!(mean([None, None].into_iter(), &[1, 1]), None);
    }
}
