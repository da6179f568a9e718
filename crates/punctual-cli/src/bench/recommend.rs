//! The one-line advice: for each wait length, the method with the lowest p99 lateness among
//! those that never woke early and spent at most a quarter of a core waiting.

use std::time::Duration;

use super::MethodResult;
use crate::units::{format_nanos, wait_label};

/// The most CPU a recommended method may spend, as a share of the wait.
pub const CPU_CEILING: f64 = 0.25;

fn best_at(results: &[&MethodResult]) -> Option<(usize, bool)> {
    let honest = |r: &&&MethodResult| r.summary.early == 0 && r.summary.samples > 0;
    let by_p99 = |r: &&&MethodResult| (r.summary.p99_ns, r.summary.cpu_ns_per_wait);
    let index_of = |best: &&MethodResult| results.iter().position(|r| std::ptr::eq(*r, *best));
    if let Some(best) = results
        .iter()
        .filter(honest)
        .filter(|r| r.cpu_share <= CPU_CEILING)
        .min_by_key(by_p99)
    {
        return index_of(best).map(|i| (i, true));
    }
    results
        .iter()
        .filter(honest)
        .min_by_key(by_p99)
        .and_then(index_of)
        .map(|i| (i, false))
}

/// The advice for `results` (several wait lengths, several methods each), or `None` when
/// nothing was measured.
pub fn recommend(results: &[MethodResult]) -> Option<String> {
    let mut waits: Vec<u64> = results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    let mut winners: Vec<(u64, &MethodResult, bool)> = Vec::new();
    for &wait in &waits {
        let at: Vec<&MethodResult> = results.iter().filter(|r| r.wait_ns == wait).collect();
        if let Some((i, within)) = best_at(&at) {
            winners.push((wait, at[i], within));
        }
    }
    let first = winners.first()?;
    let rule = "lowest p99 lateness that never woke early and spent at most a quarter of a core";
    if winners.iter().all(|(_, r, _)| r.method == first.1.method) {
        let anchor = winners
            .iter()
            .find(|(wait, _, _)| *wait == 1_000_000)
            .unwrap_or(&winners[winners.len() / 2]);
        let (wait, best, within) = *anchor;
        let std = results
            .iter()
            .find(|r| r.wait_ns == wait && r.method == "std" && best.method != "std");
        let versus = std.map_or(String::new(), |s| {
            format!(
                "; std::thread::sleep woke {} late at the median",
                format_nanos(s.summary.p50_ns as f64)
            )
        });
        let caveat = if within {
            ""
        } else {
            " (no method stayed within a quarter of a core)"
        };
        return Some(format!(
            "use `{}` here ({rule}){caveat}: at {} it woke {} late at the median and {} at p99, for {:.1}% of a core{versus}.",
            best.method,
            wait_label(Duration::from_nanos(wait)),
            format_nanos(best.summary.p50_ns as f64),
            format_nanos(best.summary.p99_ns as f64),
            best.cpu_share * 100.0,
        ));
    }
    let parts: Vec<String> = winners
        .iter()
        .map(|(wait, r, within)| {
            let caveat = if *within {
                ""
            } else {
                " (over a quarter of a core)"
            };
            format!(
                "`{}` for {}{caveat}",
                r.method,
                wait_label(Duration::from_nanos(*wait))
            )
        })
        .collect();
    Some(format!("use {} ({rule}).", parts.join(", ")))
}
