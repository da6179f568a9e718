//! Two independent runs (`punctual report a.json b.json`): were their rounds drawn from one
//! distribution? A permutation test on the rounds.
//!
//! Two runs made at different times share no rounds, so nothing pairs them; if the method
//! behaved the same in both, which run a round came from is an arbitrary label, and every
//! relabelling of the pooled rounds is as likely as the one observed. The p-value is the share
//! of relabellings whose difference of figures (median of the rounds' percentiles, or CPU per
//! wait over their waits) is at least as large, either way, as the observed one: every
//! relabelling when there are at most [`EXACT_UP_TO`], else random ones.

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
    let difference = |first: &[usize], rest: &[usize]| -> Option<f64> {
        Some(centre(&pooled, rest, figure)? - centre(&pooled, first, figure)?)
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
        // With equal numbers of rounds, the mirror of a split is as extreme as the split.
        (if 2 * ka == n { 2.0 } else { 1.0 }) / splits as f64
    } else {
        1.0 / total as f64
    };
    let a_figure = centre(&pooled, &first, figure)?;
    let verdict = if p_value > 1.0 - settings.confidence() {
        Verdict::NoDifferenceShown
    } else if observed < 0.0 {
        Verdict::Better
    } else {
        Verdict::Worse
    };
    Some(Comparison {
        figure,
        ratio: (a_figure > 0.0).then(|| (a_figure + observed) / a_figure),
        p_value,
        least_p,
        exact,
        rounds: (ka, n - ka),
        verdict,
    })
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

    #[test]
    fn a_planted_2x_difference_is_found() {
        let settings = Settings::default();
        let doubled = Normal {
            mean: SPREAD.mean + 2f64.ln(),
            ..SPREAD
        };
        let found = (0..50u64)
            .filter(|&seed| {
                let a = lognormal_rounds(2 * seed, 6, SPREAD);
                let b = lognormal_rounds(2 * seed + 1, 6, doubled);
                compare(&a, &b, Figure::P99, &settings).unwrap().verdict == Verdict::Worse
            })
            .count();
        assert!(found >= 40, "{found} of 50");
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
