//! The one-line advice: for each wait length, among the methods that never woke early and
//! spent at most a quarter of a core beyond the cheapest method measured, the one that wakes
//! closest to its deadline.
//!
//! The CPU rule is relative because waking from any sleep has a cost of its own: about 20 us
//! of CPU per wake on a VM, a fifth of a 100 us wait, whatever the method. What the rule is
//! there to exclude is the spinning on top of that.
//!
//! "Closest" is judged on the p99 when there are at least 1,000 samples, and on the p90
//! otherwise: a p99 of 100 samples is their second-largest, which says more about the one
//! stall that happened than about the method. Values within 20% (or 100 ns) of the best
//! count as ties, broken by the median, then by the lower CPU cost.
//!
//! Over K rounds (`--repeat K`) the figures judged are the medians over the rounds, and the
//! advice adds, at each wait, what the paired rounds show of the winner against the methods
//! it was chosen from: "better" or "worse" only on a figure whose interval of the ratio
//! excludes 1, "no difference shown" otherwise. The headline then calls the winner closest
//! to the deadline only if the rounds show it closer than every one of them at every wait
//! (better on p50 or p99 and worse on neither); otherwise it says that the rule picked it,
//! and the claims say against whom it is closer, where no difference is shown, and where a
//! peer woke closer but tied by the rule's 20% or 100 ns (so the lower CPU decided).

use std::time::Duration;

use super::rounds;
use super::MethodResult;
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::Figure;
use crate::intervals::format::percent;
use crate::intervals::paired::Verdict;
use crate::units::{format_nanos, wait_label};

/// The most CPU a recommended method may spend beyond the cheapest, as a share of the wait.
pub const CPU_CEILING: f64 = 0.25;

/// Enough samples for a p99 to mean something.
const P99_SAMPLES: u64 = 1000;

/// A figure over the rounds, where the run had rounds.
fn over_rounds(r: &MethodResult, figure: Figure) -> Option<u64> {
    Some(r.over_rounds?.get(figure)?.value.round() as u64)
}

/// Whether the tail judged is the p99: every round (or the run) had enough samples for it.
fn judged_on_p99(r: &MethodResult) -> bool {
    if r.rounds.is_empty() {
        r.summary.lateness.samples >= P99_SAMPLES
    } else {
        r.rounds.iter().all(|round| round.waits >= P99_SAMPLES)
    }
}

fn tail(r: &MethodResult) -> u64 {
    if judged_on_p99(r) {
        over_rounds(r, Figure::P99).unwrap_or(r.summary.lateness.p99_ns)
    } else {
        r.summary.lateness.p90_ns
    }
}

fn median(r: &MethodResult) -> u64 {
    over_rounds(r, Figure::P50).unwrap_or(r.summary.lateness.p50_ns)
}

fn tied(value: u64, best: u64) -> bool {
    value as f64 <= (best as f64 * 1.2).max(best as f64 + 100.0)
}

/// The best of `candidates` by the rule in the module docs.
fn best_of<'a>(candidates: &[&'a MethodResult]) -> Option<&'a MethodResult> {
    let best_tail = candidates.iter().map(|r| tail(r)).min()?;
    let close: Vec<&MethodResult> = candidates
        .iter()
        .copied()
        .filter(|r| tied(tail(r), best_tail))
        .collect();
    let best_median = close.iter().map(|r| median(r)).min()?;
    close
        .into_iter()
        .filter(|r| tied(median(r), best_median))
        .min_by_key(|r| r.summary.cpu_ns_per_wait)
}

/// The method the advice names at one wait length (`at`, every method there).
pub fn winner_at<'a>(at: &[&'a MethodResult]) -> Option<&'a MethodResult> {
    winner(at).map(|(r, _)| r).map(|(r, _)| r)
}

/// The best method at one wait length, the methods it was chosen from, and whether it kept
/// within the CPU ceiling.
fn winner<'a>(
    at: &[&'a MethodResult],
) -> Option<((&'a MethodResult, Vec<&'a MethodResult>), bool)> {
    let honest: Vec<&MethodResult> = at
        .iter()
        .copied()
        .filter(|r| r.summary.lateness.early == 0 && r.summary.lateness.samples > 0)
        .collect();
    let cheapest = honest
        .iter()
        .map(|r| r.cpu_share)
        .fold(f64::INFINITY, f64::min);
    let frugal: Vec<&MethodResult> = honest
        .iter()
        .copied()
        .filter(|r| r.cpu_share - cheapest <= CPU_CEILING)
        .collect();
    match best_of(&frugal) {
        Some(r) => Some(((r, frugal), true)),
        None => best_of(&honest).map(|r| ((r, honest), false)),
    }
}

/// Where the paired rounds put the winner against one method it was chosen over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// Better on p50 or p99, worse on neither.
    Closer,
    /// Neither better nor worse on either.
    NoDifference,
    /// Worse on p50 or p99: a peer the rule's ties gave to the winner (or the rounds
    /// disagree with the pooled figures the rule read).
    Behind,
}

/// What the paired rounds show of `best` against the others it was chosen from at one
/// wait: each peer's standing and the words for it (`p50 better, p99 no difference shown`;
/// for a peer `best` is behind, its CPU too). Empty for a run of one round.
fn standings(
    best: &MethodResult,
    peers: &[&MethodResult],
    settings: &Settings,
) -> Vec<(String, Standing, String)> {
    if best.over_rounds.is_none() {
        return Vec::new();
    }
    let mut shown = Vec::new();
    for peer in peers.iter().filter(|peer| peer.method != best.method) {
        let ratios = rounds::ratios(best, peer, settings);
        let lateness: Vec<Verdict> = ratios
            .iter()
            .filter(|r| r.figure != Figure::Cpu)
            .map(|r| r.verdict())
            .collect();
        if lateness.is_empty() {
            continue;
        }
        let standing = if lateness.contains(&Verdict::Worse) {
            Standing::Behind
        } else if lateness.contains(&Verdict::Better) {
            Standing::Closer
        } else {
            Standing::NoDifference
        };
        let figures: Vec<String> = ratios
            .iter()
            .filter(|r| r.figure != Figure::Cpu || standing == Standing::Behind)
            .map(|r| format!("{} {}", r.figure.label(), r.verdict().text()))
            .collect();
        let mut words = figures.join(", ");
        if standing == Standing::Behind && tied_with(best, peer) {
            words.push_str(", a tie by the rule (within 20% or 100 ns)");
        }
        shown.push((format!("`{}`", peer.method), standing, words));
    }
    shown
}

/// Whether `peer` tied `best` on the tail and the median by the rule, so that the lower CPU
/// decided between them.
fn tied_with(best: &MethodResult, peer: &MethodResult) -> bool {
    tied(tail(peer), tail(best)) && tied(median(peer), median(best))
}

/// Whether the paired rounds show `best` closer to the deadline than each peer at its wait.
fn closest_shown(best: &MethodResult, peers: &[&MethodResult], settings: &Settings) -> bool {
    standings(best, peers, settings)
        .iter()
        .all(|(_, standing, _)| *standing == Standing::Closer)
}

/// The claims at one wait: ` At 1ms, from 3 paired rounds (at 95%): closer to the deadline
/// than `std` (p50 better, p99 better); no difference shown against `spin`; against
/// `spin_sleep` p50 worse, p99 worse, CPU better, a tie by the rule (...).`; empty for a run
/// of one round.
fn claims(best: &MethodResult, peers: &[&MethodResult], settings: &Settings) -> String {
    let Some(over) = best.over_rounds else {
        return String::new();
    };
    let shown = standings(best, peers, settings);
    // Peers with the same standing and words are named together.
    let mut groups: Vec<(Standing, String, Vec<String>)> = Vec::new();
    for (name, standing, words) in shown {
        match groups
            .iter_mut()
            .find(|(s, w, _)| *s == standing && *w == words)
        {
            Some((_, _, names)) => names.push(name),
            None => groups.push((standing, words, vec![name])),
        }
    }
    groups.sort_by_key(|(standing, _, _)| *standing as u8);
    let against: Vec<String> = groups
        .iter()
        .map(|(standing, words, names)| {
            let names = names.join(", ");
            match standing {
                Standing::Closer => format!("closer to the deadline than {names} ({words})"),
                Standing::NoDifference => format!("no difference shown against {names}"),
                Standing::Behind => format!("against {names} {words}"),
            }
        })
        .collect();
    if against.is_empty() {
        return String::new();
    }
    // Too few rounds for the confidence: say how sure the verdicts are, not what was asked.
    let sure = match over.p99_ns.and_then(|b| b.reach) {
        Some(reach) => format!(
            "intervals at most {} sure, short of {}",
            percent(reach),
            percent(settings.confidence())
        ),
        None => format!("at {}", percent(settings.confidence())),
    };
    format!(
        " At {}, from {} paired rounds ({sure}): {}.",
        wait_label(Duration::from_nanos(best.wait_ns)),
        over.rounds,
        against.join("; ")
    )
}

/// What the winner spent: a share of a core, or, when a wake cost more than the wait, that.
fn cost(r: &MethodResult) -> String {
    if r.cpu_share > 1.0 {
        format!(
            "{} of CPU a wait, more than the wait itself",
            format_nanos(r.summary.cpu_ns_per_wait as f64)
        )
    } else {
        format!("{:.1}% of a core", r.cpu_share * 100.0)
    }
}

/// The advice for `results` (several wait lengths, several methods each), or `None` when
/// nothing was measured; `settings` are the intervals' for a run of rounds.
pub fn recommend(results: &[MethodResult], settings: &Settings) -> Option<String> {
    let mut waits: Vec<u64> = results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    let mut peers = Vec::new();
    let winners: Vec<(u64, &MethodResult, bool)> = waits
        .iter()
        .filter_map(|&wait| {
            let at: Vec<&MethodResult> = results.iter().filter(|r| r.wait_ns == wait).collect();
            winner(&at).map(|((r, chosen_from), within)| {
                peers.push(chosen_from);
                (wait, r, within)
            })
        })
        .collect();
    let first = winners.first()?;
    // With rounds, "closest" only where the paired rounds show it against every peer at
    // every wait; otherwise the rule is said for what it is, and the claims say the rest.
    let shown = winners
        .iter()
        .zip(&peers)
        .all(|((_, best, _), peers)| closest_shown(best, peers, settings));
    let rule = if shown {
        "closest to the deadline among the methods that never woke early and spent at most a quarter of a core more than the cheapest"
    } else {
        "the rule's pick among the methods that never woke early and spent at most a quarter of a core more than the cheapest: least lateness over the rounds, ties within 20% or 100 ns going to the median, then the CPU; closer to the deadline only where the paired rounds that follow say so"
    };
    // Each wait's claims, whoever won there.
    let claimed: String = winners
        .iter()
        .zip(&peers)
        .map(|((_, best, _), peers)| claims(best, peers, settings))
        .collect();
    if winners.iter().all(|(_, r, _)| r.method == first.1.method) {
        let (wait, best, within) = *winners
            .iter()
            .find(|(wait, _, _)| *wait == 1_000_000)
            .unwrap_or(&winners[winners.len() / 2]);
        let std = results
            .iter()
            .find(|r| r.wait_ns == wait && r.method == "std" && best.method != "std");
        let versus = std.map_or(String::new(), |s| {
            format!(
                "; std::thread::sleep woke {} late at the median",
                format_nanos(s.summary.lateness.p50_ns as f64)
            )
        });
        let caveat = if within {
            ""
        } else {
            " (none stayed within a quarter of a core of the cheapest)"
        };
        let percentile = if judged_on_p99(best) { "p99" } else { "p90" };
        return Some(format!(
            "use `{}` here ({rule}){caveat}: at {} it woke {} late at the median and {} at {percentile}, for {}{versus}.{claimed}",
            best.method,
            wait_label(Duration::from_nanos(wait)),
            format_nanos(median(best) as f64),
            format_nanos(tail(best) as f64),
            cost(best),
        ));
    }
    let parts: Vec<String> = winners
        .iter()
        .map(|(wait, r, within)| {
            let caveat = if *within {
                ""
            } else {
                " (over a quarter of a core more than the cheapest)"
            };
            format!(
                "`{}` for {}{caveat}",
                r.method,
                wait_label(Duration::from_nanos(*wait))
            )
        })
        .collect();
    Some(format!("use {} ({rule}).{claimed}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::rounds::OverRounds;
    use crate::bench::stats::{Lateness, Summary};
    use crate::bench::Mode;
    use crate::intervals::figure::Round;

    fn result(
        method: &str,
        samples: u64,
        p50: u64,
        p90: u64,
        p99: u64,
        cpu_share: f64,
        early: u64,
    ) -> MethodResult {
        MethodResult {
            method: method.to_string(),
            ours: false,
            wait_ns: 1_000_000,
            mode: Mode::Single,
            summary: Summary {
                lateness: Lateness {
                    samples,
                    min_ns: 0,
                    mean_ns: p50 as i64,
                    p50_ns: p50,
                    p90_ns: p90,
                    p99_ns: p99,
                    p999_ns: p99,
                    max_ns: p99,
                    early,
                },
                early_max_ns: 0,
                missed: 0,
                cpu_ns_per_wait: (cpu_share * 1e6) as u64,
                self_reported_p50_ns: None,
                self_reported_p99_ns: None,
            },
            cpu_share,
            note: None,
            lateness_percentiles: Vec::new(),
            rounds: Vec::new(),
            over_rounds: None,
        }
    }

    #[test]
    fn early_wakers_and_cpu_hogs_are_not_recommended() {
        let results = [
            result("spin", 3000, 20, 30, 40, 1.0, 0),
            result("early", 3000, 10, 10, 10, 0.01, 3),
            result("hybrid", 3000, 25, 40, 300, 0.03, 0),
            result("native", 3000, 20_000, 30_000, 60_000, 0.01, 0),
        ];
        assert!(recommend(&results, &Settings::default())
            .unwrap()
            .starts_with("use `hybrid` here"));
    }

    #[test]
    fn equal_tails_go_to_the_better_median_then_the_cheaper() {
        let results = [
            result("native", 3000, 30_000, 50_000, 1_200_000, 0.02, 0),
            result("hybrid", 3000, 20, 40, 1_220_000, 0.14, 0),
            result("std", 3000, 76_000, 100_000, 1_500_000, 0.02, 0),
        ];
        assert!(recommend(&results, &Settings::default())
            .unwrap()
            .starts_with("use `hybrid` here"));
        let cheaper = [
            result("a", 3000, 100, 200, 300, 0.10, 0),
            result("b", 3000, 100, 200, 300, 0.05, 0),
        ];
        assert!(recommend(&cheaper, &Settings::default())
            .unwrap()
            .starts_with("use `b` here"));
    }

    #[test]
    fn the_cpu_ceiling_counts_from_the_cheapest_method() {
        // At 100 us every wake costs about a fifth of the wait on a VM; only spinning past
        // that is excluded.
        let results = [
            result("slow", 3000, 978_000, 1_600_000, 1_980_000, 0.199, 0),
            result("fast", 3000, 28_000, 30_000, 41_000, 0.264, 0),
            result("spinner", 3000, 20, 30, 40, 0.99, 0),
        ];
        assert!(recommend(&results, &Settings::default())
            .unwrap()
            .starts_with("use `fast` here"));
    }

    /// `r` over `k` rounds, round `i` at `spread[i % len]` times its figures.
    fn with_rounds(mut r: MethodResult, k: usize, spread: &[f64]) -> MethodResult {
        let l = r.summary.lateness;
        r.rounds = (0..k)
            .map(|i| {
                let by = |ns: u64| (ns as f64 * spread[i % spread.len()]) as u64;
                Round {
                    waits: l.samples,
                    p50_ns: by(l.p50_ns),
                    p99_ns: by(l.p99_ns),
                    p999_ns: by(l.p999_ns),
                    cpu_ns_per_wait: r.summary.cpu_ns_per_wait,
                }
            })
            .collect();
        r.over_rounds = OverRounds::of(&r.rounds, &Settings::default());
        r
    }

    #[test]
    fn with_rounds_the_advice_claims_only_what_the_intervals_show() {
        let spread = [1.0, 1.3, 0.8, 1.1, 0.9, 1.2];
        let results = [
            with_rounds(result("a", 3000, 100, 150, 200, 0.05, 0), 6, &spread),
            // Twice a's p50 in every round; its p99 the same as a's but in another order.
            with_rounds(
                result("b", 3000, 200, 250, 200, 0.05, 0),
                6,
                &[1.2, 0.9, 1.1, 0.8, 1.3, 1.0],
            ),
        ];
        let advice = recommend(&results, &Settings::default()).unwrap();
        assert!(
            advice.starts_with("use `a` here (closest to the deadline among"),
            "{advice}"
        );
        assert!(
            advice.ends_with(
                "At 1ms, from 6 paired rounds (at 95%): closer to the deadline than `b` (p50 better, p99 no difference shown)."
            ),
            "{advice}"
        );
        let few = [
            with_rounds(result("a", 3000, 100, 150, 200, 0.05, 0), 3, &spread),
            with_rounds(result("b", 3000, 400, 450, 800, 0.05, 0), 3, &spread),
        ];
        let advice = recommend(&few, &Settings::default()).unwrap();
        assert!(
            advice.contains("from 3 paired rounds (intervals at most 75% sure, short of 95%)"),
            "{advice}"
        );
    }

    /// `r` at `wait_ns` instead.
    fn at(mut r: MethodResult, wait_ns: u64) -> MethodResult {
        r.wait_ns = wait_ns;
        r
    }

    /// The snapshot's case: `b` woke closer in every round, by less than the rule's 100 ns,
    /// and `a` is cheaper, so the rule picks `a`. The headline must not call it closest.
    #[test]
    fn a_pick_by_the_rules_tie_is_not_called_closest() {
        let spread = [1.0, 1.02, 0.98, 1.01, 0.99, 1.03];
        let results = [
            with_rounds(result("a", 3000, 180, 200, 210, 0.01, 0), 6, &spread),
            with_rounds(result("b", 3000, 90, 120, 130, 0.05, 0), 6, &spread),
            with_rounds(
                result("slow", 3000, 80_000, 90_000, 95_000, 0.01, 0),
                6,
                &spread,
            ),
        ];
        let advice = recommend(&results, &Settings::default()).unwrap();
        assert!(
            advice.starts_with("use `a` here (the rule's pick"),
            "{advice}"
        );
        assert!(!advice.contains("closest"), "{advice}");
        assert!(
            advice.ends_with(
                "closer to the deadline than `slow` (p50 better, p99 better); against `b` p50 worse, p99 worse, CPU better, a tie by the rule (within 20% or 100 ns)."
            ),
            "{advice}"
        );
    }

    /// Nothing shown either way is said so, and keeps "closest" out of the headline.
    #[test]
    fn no_difference_shown_is_not_closest() {
        let results = [
            with_rounds(
                result("a", 3000, 100, 150, 200, 0.01, 0),
                6,
                &[1.0, 1.3, 0.8, 1.1, 0.9, 1.2],
            ),
            with_rounds(
                result("b", 3000, 100, 150, 200, 0.02, 0),
                6,
                &[1.2, 0.9, 1.1, 0.8, 1.3, 1.0],
            ),
        ];
        let advice = recommend(&results, &Settings::default()).unwrap();
        assert!(
            advice.starts_with("use `a` here (the rule's pick"),
            "{advice}"
        );
        assert!(
            advice.ends_with("(at 95%): no difference shown against `b`."),
            "{advice}"
        );
    }

    /// One method best at every wait: the claims are made at each wait, not only at 1 ms.
    #[test]
    fn one_winner_everywhere_has_claims_at_each_wait() {
        let spread = [1.0, 1.3, 0.8, 1.1, 0.9, 1.2];
        let results: Vec<MethodResult> = [100_000, 1_000_000, 10_000_000]
            .into_iter()
            .flat_map(|wait| {
                [
                    at(
                        with_rounds(result("a", 3000, 100, 150, 200, 0.01, 0), 6, &spread),
                        wait,
                    ),
                    at(
                        with_rounds(result("b", 3000, 900, 950, 2000, 0.01, 0), 6, &spread),
                        wait,
                    ),
                ]
            })
            .collect();
        let advice = recommend(&results, &Settings::default()).unwrap();
        assert!(
            advice.starts_with("use `a` here (closest to the deadline among"),
            "{advice}"
        );
        for wait in ["100us", "1ms", "10ms"] {
            assert!(
                advice.contains(&format!(
                    "At {wait}, from 6 paired rounds (at 95%): closer to the deadline than `b` (p50 better, p99 better)."
                )),
                "{wait}: {advice}"
            );
        }
    }

    #[test]
    fn few_samples_are_judged_on_the_p90() {
        let results = [
            result("lucky", 100, 30_000, 50_000, 200_000, 0.02, 0),
            result("hybrid", 100, 20, 40, 1_600_000, 0.06, 0),
        ];
        let advice = recommend(&results, &Settings::default()).unwrap();
        assert!(
            advice.starts_with("use `hybrid` here") && advice.contains("at p90"),
            "{advice}"
        );
    }
}
