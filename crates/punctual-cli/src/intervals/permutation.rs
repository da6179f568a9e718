//! Two independent runs (`punctual report a.json b.json`): were their rounds drawn from one
//! distribution? A permutation test on the rounds.
//!
//! Two runs made at different times share no rounds, so nothing pairs them; if the method
//! behaved the same in both, which run a round came from is an arbitrary label, and every
//! relabelling of the pooled rounds is as likely as the one observed. The p-value is the share
//! of relabellings whose statistic is at least as far from no difference, either way, as the
//! observed one: every relabelling when there are at most [`EXACT_UP_TO`], else random ones.
//!
//! For CPU per wait the statistic is the difference of the two runs' CPU over their waits.
//! For a percentile it is the rank sum of B's rounds (Wilcoxon's, mid-ranks for ties) less
//! its expectation, not the difference of the two medians: with the medians, two runs whose
//! rounds form two tight clusters (every round of B twice every round of A) could not be
//! told apart, since nearly every relabelling puts a majority of one cluster on each side
//! and its medians then differ by as much as the runs' do (5 rounds against 5: p near 0.2).
//! The rank sum is at its extreme only when the runs' rounds do not overlap at all. The ratio
//! shown beside the p-value is still B's median over A's.

use super::bootstrap::Settings;
use super::figure::{centre, Figure, Round};
use super::paired::Verdict;
use crate::rng::Rng;

/// The most relabellings counted one by one (10 rounds against 10 have 184,756).
pub const EXACT_UP_TO: u64 = 20_000;

/// Run B against run A on one figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    pub figure: Figure,
    /// B's figure over A's; `None` when A's is 0.
    pub ratio: Option<f64>,
    /// The two-sided p-value.
    pub p_value: f64,
    /// The least p-value these numbers of rounds can give: above `1 - confidence`, no
    /// difference can be shown however different the runs are.
    pub least_p: f64,
    /// Whether every relabelling was counted (else `p_value` is estimated from random ones).
    pub exact: bool,
    /// Rounds with waits in A and in B.
    pub rounds: (usize, usize),
    /// Better or worse (B against A, lower being better) where `p_value <= 1 - confidence`.
    pub verdict: Verdict,
}

/// B's `figure` against A's. `None` when either run has no round with waits.
pub fn compare(
    a: &[Round],
    b: &[Round],
    figure: Figure,
    settings: &Settings,
) -> Option<Comparison> {
    let pooled: Vec<Round> = a.iter().chain(b).copied().filter(|r| r.waits > 0).collect();
    let ka = a.iter().filter(|r| r.waits > 0).count();
    let n = pooled.len();
    if ka == 0 || ka == n {
        return None;
    }
    let ranks = (figure != Figure::Cpu)
        .then(|| mid_ranks(&pooled, figure))
        .flatten();
    // Positive when B's rounds lie above A's.
    let difference = |first: &[usize], rest: &[usize]| -> Option<f64> {
        match &ranks {
            Some(ranks) => {
                let sum: f64 = rest.iter().map(|&i| ranks[i]).sum();
                Some(sum - rest.len() as f64 * (n as f64 + 1.0) / 2.0)
            }
            None => Some(centre(&pooled, rest, figure)? - centre(&pooled, first, figure)?),
        }
    };
    let (first, rest): (Vec<usize>, Vec<usize>) = ((0..ka).collect(), (ka..n).collect());
    let observed = difference(&first, &rest)?;
    // Relabellings tying the observed difference count as at least as large; the margin
    // keeps floating-point noise in a mean from splitting a tie.
    let extreme = |d: f64| d.abs() >= observed.abs() * (1.0 - 1e-12);
    let splits = choose(n as u64, ka as u64);
    let (count, total, exact) = if splits <= EXACT_UP_TO {
        let mut count = 0u64;
        let mut chosen: Vec<usize> = (0..ka).collect();
        loop {
            let others: Vec<usize> = (0..n).filter(|i| !chosen.contains(i)).collect();
            if difference(&chosen, &others).is_some_and(extreme) {
                count += 1;
            }
            if !next_combination(&mut chosen, n) {
                break;
            }
        }
        (count, splits, true)
    } else {
        let mut rng = Rng::new(settings.seed());
        let mut order: Vec<usize> = (0..n).collect();
        // The observed labelling counts once, so that p is never 0.
        let mut count = 1u64;
        for _ in 0..settings.resamples() {
            for i in (1..n).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            if difference(&order[..ka], &order[ka..]).is_some_and(extreme) {
                count += 1;
            }
        }
        (count, settings.resamples() as u64 + 1, false)
    };
    let p_value = count as f64 / total as f64;
    let least_p = if exact {
        // The mirror of a split is as extreme as the split for a rank sum, and for a
        // difference of means with equal numbers of rounds.
        let mirrored = 2 * ka == n || ranks.is_some();
        (if mirrored { 2.0 } else { 1.0 }) / splits as f64
    } else {
        1.0 / total as f64
    };
    let a_figure = centre(&pooled, &first, figure)?;
    let b_figure = centre(&pooled, &rest, figure)?;
    let verdict = if p_value > 1.0 - settings.confidence() {
        Verdict::NoDifferenceShown
    } else if observed < 0.0 {
        Verdict::Better
    } else {
        Verdict::Worse
    };
    Some(Comparison {
        figure,
        ratio: (a_figure > 0.0).then(|| b_figure / a_figure),
        p_value,
        least_p,
        exact,
        rounds: (ka, n - ka),
        verdict,
    })
}

/// Each round's rank by `figure` among `rounds`, from 1, tied rounds at the mean of their
/// ranks; `None` when a round has no such figure.
fn mid_ranks(rounds: &[Round], figure: Figure) -> Option<Vec<f64>> {
    let values: Vec<f64> = rounds
        .iter()
        .map(|r| r.value(figure))
        .collect::<Option<_>>()?;
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let end = (start..order.len())
            .find(|&j| values[order[j]] != values[order[start]])
            .unwrap_or(order.len());
        // Positions start..end (0-based) share the ranks start + 1 ..= end.
        let rank = (start + 1 + end) as f64 / 2.0;
        order[start..end].iter().for_each(|&i| ranks[i] = rank);
        start = end;
    }
    Some(ranks)
}

/// n choose k, saturating (only compared with [`EXACT_UP_TO`]).
fn choose(n: u64, k: u64) -> u64 {
    let k = k.min(n - k);
    (0..k).fold(1u64, |c, i| c.saturating_mul(n - i) / (i + 1))
}

/// The next k-subset of 0..n in lexicographic order; false after the last.
fn next_combination(chosen: &mut [usize], n: usize) -> bool {
    let k = chosen.len();
    let Some(i) = (0..k).rev().find(|&i| chosen[i] < n - k + i) else {
        return false;
    };
    chosen[i] += 1;
    for j in i + 1..k {
        chosen[j] = chosen[j - 1] + 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::{lognormal_rounds, Normal};
    use super::*;

    const SPREAD: Normal = Normal {
        mean: 11.0,
        sd: 0.4,
    };

    #[test]
    fn combinations_are_counted_one_by_one() {
        let mut chosen = vec![0, 1];
        let mut seen = 1;
        while next_combination(&mut chosen, 5) {
            seen += 1;
        }
        assert_eq!((seen, chosen), (10, vec![3, 4]));
        assert_eq!(choose(20, 10), 184_756);
        assert_eq!(choose(10, 5), 252);
    }

    #[test]
    fn identical_runs_are_rarely_called_different() {
        let settings = Settings::default();
        let called = (0..200u64)
            .filter(|&seed| {
                let a = lognormal_rounds(2 * seed, 5, SPREAD);
                let b = lognormal_rounds(2 * seed + 1, 5, SPREAD);
                let c = compare(&a, &b, Figure::P99, &settings).unwrap();
                assert!(c.exact);
                c.verdict != Verdict::NoDifferenceShown
            })
            .count();
        // An exact test at 5% calls at most 5% of them different, in expectation.
        assert!(called <= 20, "{called} of 200");
    }

    /// At this spread (a log-sd of 0.4, rounds' p99s from half to twice their median), 8
    /// rounds against 8 find a 2x in most trials; 6 against 6 in about two of three, with the
    /// rank sum or with a difference of medians alike.
    #[test]
    fn a_planted_2x_difference_is_found() {
        let settings = Settings::default();
        let doubled = Normal {
            mean: SPREAD.mean + 2f64.ln(),
            ..SPREAD
        };
        let found = (0..50u64)
            .filter(|&seed| {
                let a = lognormal_rounds(2 * seed, 8, SPREAD);
                let b = lognormal_rounds(2 * seed + 1, 8, doubled);
                compare(&a, &b, Figure::P99, &settings).unwrap().verdict == Verdict::Worse
            })
            .count();
        assert!(found >= 40, "{found} of 50");
    }

    /// Every round of B twice every round of A, each run's rounds all but equal: the runs do
    /// not overlap, which the rank sum shows at the least p-value 5 rounds against 5 allow.
    /// (A difference of medians gave p = 0.167 here: most relabellings split both clusters.)
    #[test]
    fn two_tight_clusters_are_told_apart() {
        let round = |p50_ns| Round {
            waits: 1000,
            p50_ns,
            p99_ns: 1,
            p999_ns: 1,
            cpu_ns_per_wait: 1,
        };
        let a: Vec<Round> = [180, 179, 180, 179, 180].map(round).to_vec();
        let b: Vec<Round> = a.iter().map(|r| round(r.p50_ns * 2)).collect();
        let c = compare(&a, &b, Figure::P50, &Settings::default()).unwrap();
        assert_eq!((c.p_value, c.verdict), (2.0 / 252.0, Verdict::Worse));
        assert_eq!(c.least_p, 2.0 / 252.0);
        assert_eq!(c.ratio, Some(2.0));
        let c = compare(&b, &a, Figure::P50, &Settings::default()).unwrap();
        assert_eq!((c.verdict, c.ratio), (Verdict::Better, Some(0.5)));
        // Unequal numbers of rounds: both complete separations are as extreme.
        let c = compare(&a[..3], &b, Figure::P50, &Settings::default()).unwrap();
        assert_eq!((c.p_value, c.least_p), (2.0 / 56.0, 2.0 / 56.0));
    }

    #[test]
    fn ranks_share_their_ties() {
        let round = |p99_ns| Round {
            waits: 1,
            p99_ns,
            ..Round::default()
        };
        let rounds = [5, 1, 5, 3].map(round);
        assert_eq!(
            mid_ranks(&rounds, Figure::P99).unwrap(),
            [3.5, 1.0, 3.5, 2.0]
        );
    }

    #[test]
    fn many_rounds_are_relabelled_at_random() {
        let a = lognormal_rounds(1, 12, SPREAD);
        let b: Vec<Round> = lognormal_rounds(2, 12, SPREAD)
            .into_iter()
            .map(|r| Round {
                cpu_ns_per_wait: r.cpu_ns_per_wait * 2,
                ..r
            })
            .collect();
        let c = compare(&a, &b, Figure::Cpu, &Settings::default()).unwrap();
        assert!(!c.exact);
        assert_eq!(c.verdict, Verdict::Worse);
        assert!((c.p_value - 1.0 / 2001.0).abs() < 1e-12);
        assert!(c.ratio.unwrap() > 1.8 && c.ratio.unwrap() < 2.2);
    }

    #[test]
    fn too_few_rounds_cannot_show_a_difference() {
        let a = lognormal_rounds(1, 1, SPREAD);
        let mut b = a.clone();
        b[0].p99_ns *= 10;
        let c = compare(&a, &b, Figure::P99, &Settings::default()).unwrap();
        assert_eq!(
            (c.p_value, c.least_p, c.verdict),
            (1.0, 1.0, Verdict::NoDifferenceShown)
        );
        let a = lognormal_rounds(1, 3, SPREAD);
        let c = compare(&a, &a, Figure::P99, &Settings::default()).unwrap();
        assert_eq!((c.least_p, c.rounds), (0.1, (3, 3)));
        assert_eq!(c.ratio, Some(1.0));
    }

    #[test]
    fn a_run_without_waits_has_nothing_to_compare() {
        let a = lognormal_rounds(1, 3, SPREAD);
        let none = vec![Round::default(); 3];
        assert_eq!(compare(&a, &none, Figure::P99, &Settings::default()), None);
        assert_eq!(compare(&none, &a, Figure::P99, &Settings::default()), None);
    }
}
