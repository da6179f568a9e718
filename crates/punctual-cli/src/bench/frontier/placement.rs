//! Where an adaptive method sits: the fixed-margin frontier's p99 at the CPU the method
//! spent, and the method beside spin_sleep's default.
//!
//! The frontier is the fixed margins that no cheaper fixed margin beats on p99 (a noisy
//! run can put a larger margin below a smaller one's p99 at more CPU). Between two of them
//! the p99 is interpolated geometrically, a straight line on the plot's log axis; past the
//! costliest it stays at that margin's p99 (more CPU need not buy a worse tail). A method
//! that spent less CPU than the cheapest fixed margin (on a noisy machine the hybrid can
//! read below a plain native sleep) is compared with that cheapest margin's p99: the
//! frontier at less CPU is no better, so a ratio at or below 1 there still means the method
//! beat it.

use serde::{Deserialize, Serialize};

use super::{Family, FitVerdict, FrontierPoint};

/// One adaptive method at one wait, against the frontier and spin_sleep's default.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Placement {
    /// `hybrid` or `async-spin`.
    pub method: String,
    /// The wait, in nanoseconds.
    pub wait_ns: u64,
    /// The method's CPU per wait.
    pub cpu_ns_per_wait: u64,
    /// The method's p99 lateness.
    pub p99_ns: u64,
    /// The frontier's p99 at the method's CPU per wait (at the cheapest fixed margin's
    /// when the method spent less); `null` when no fixed margin was measured.
    pub frontier_p99_ns: Option<u64>,
    /// Which fixed margins `frontier_p99_ns` was read between, or why there is none.
    pub frontier_basis: String,
    /// `p99_ns / frontier_p99_ns`: 1 is on the frontier, above 1 worse than it.
    pub p99_to_frontier: Option<f64>,
    /// spin_sleep's default at this wait: CPU per wait.
    pub spin_sleep_default_cpu_ns_per_wait: Option<u64>,
    /// spin_sleep's default at this wait: p99 lateness.
    pub spin_sleep_default_p99_ns: Option<u64>,
    /// The method's CPU per wait over spin_sleep's default's.
    pub cpu_to_spin_sleep: Option<f64>,
    /// The method's p99 over spin_sleep's default's.
    pub p99_to_spin_sleep: Option<f64>,
    /// How the fixed margins' p99 follows their margin at this wait ([`sweep_order`]):
    /// near -1 when each larger margin has the lower tail, near 0 when the tail does not
    /// follow the margin at all. `null` with fewer than three fixed margins measured.
    pub sweep_order: Option<f64>,
    /// With rounds (`--repeat K`, K from 2): the method against the monotone fit of the
    /// fixed margins' figures over the rounds, with the intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitVerdict>,
}

/// The rank correlation (Spearman's, ties at their mean rank) of the fixed margins' p99
/// with their margin, among `points` (one wait's); `None` with fewer than three.
///
/// Near -1, a larger margin buys a lower tail and the frontier is a curve a method can be
/// placed on. Near 0, the tail is set by stalls longer than any margin swept: the fixed
/// margins' p99s are then several draws of one distribution, the frontier is the lowest of
/// them, and a method's ratio against it says little.
pub fn sweep_order(points: &[FrontierPoint]) -> Option<f64> {
    let sweep: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.family == Family::FixedMargin && p.summary.lateness.samples > 0)
        .filter_map(|p| Some((p.setting_ns? as f64, p.summary.lateness.p99_ns as f64)))
        .collect();
    if sweep.len() < 3 {
        return None;
    }
    let margins = ranks(&sweep.iter().map(|s| s.0).collect::<Vec<_>>());
    let p99s = ranks(&sweep.iter().map(|s| s.1).collect::<Vec<_>>());
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mm, mp) = (mean(&margins), mean(&p99s));
    let cov: f64 = margins
        .iter()
        .zip(&p99s)
        .map(|(a, b)| (a - mm) * (b - mp))
        .sum();
    let var = |v: &[f64], m: f64| v.iter().map(|a| (a - m) * (a - m)).sum::<f64>();
    let spread = (var(&margins, mm) * var(&p99s, mp)).sqrt();
    // Every p99 equal (or every margin): no order to speak of.
    Some(if spread > 0.0 { cov / spread } else { 0.0 })
}

/// What a [`sweep_order`] says of the frontier, in words.
pub fn sweep_verdict(order: f64) -> &'static str {
    if order <= -0.7 {
        "the tail follows the margin, and the frontier is a curve to be placed on"
    } else if order <= -0.3 {
        "the tail follows the margin only loosely, so a ratio against the frontier is rough"
    } else {
        "the tail does not follow the margin: stalls longer than any margin swept set it, the \
         frontier is the lowest of several draws of one distribution, and a ratio against it \
         says little"
    }
}

/// Each value's rank, from 0, ties sharing their mean rank.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let tied = order[start..]
            .iter()
            .take_while(|&&i| values[i] == values[order[start]])
            .count();
        let rank = start as f64 + (tied - 1) as f64 / 2.0;
        order[start..start + tied]
            .iter()
            .for_each(|&i| ranks[i] = rank);
        start += tied;
    }
    ranks
}

/// `(cpu_ns_per_wait, p99_ns, label)` of a frontier point.
type Corner<'a> = (u64, u64, &'a str);

/// The fixed margins on the frontier, cheapest first.
fn frontier(points: &[FrontierPoint]) -> Vec<Corner<'_>> {
    let mut sweep: Vec<Corner<'_>> = points
        .iter()
        .filter(|p| p.family == Family::FixedMargin && p.summary.lateness.samples > 0)
        .map(|p| {
            (
                p.summary.cpu_ns_per_wait,
                p.summary.lateness.p99_ns,
                p.label.as_str(),
            )
        })
        .collect();
    sweep.sort_by_key(|&(cpu, p99, _)| (cpu, p99));
    let mut efficient: Vec<Corner<'_>> = Vec::new();
    for corner in sweep {
        if efficient.last().is_none_or(|last| corner.1 < last.1) {
            efficient.push(corner);
        }
    }
    efficient
}

/// The frontier's p99 at `cpu_ns`, and what it was read from.
fn frontier_at(frontier: &[Corner<'_>], cpu_ns: u64) -> (Option<u64>, String) {
    let (Some(first), Some(last)) = (frontier.first(), frontier.last()) else {
        return (None, "no fixed margin was measured".to_string());
    };
    if cpu_ns < first.0 {
        return (
            Some(first.1),
            format!(
                "at the cheapest fixed margin, {}: the method spent less CPU than any",
                first.2
            ),
        );
    }
    if cpu_ns >= last.0 {
        return (
            Some(last.1),
            format!("at or past {}, the costliest on the frontier", last.2),
        );
    }
    let i = frontier
        .windows(2)
        .position(|pair| cpu_ns < pair[1].0)
        .expect("cpu_ns is below the last corner");
    let (lo, hi) = (frontier[i], frontier[i + 1]);
    let along = (cpu_ns - lo.0) as f64 / (hi.0 - lo.0) as f64;
    let ln = |ns: u64| (ns.max(1) as f64).ln();
    let p99 = (ln(lo.1) + along * (ln(hi.1) - ln(lo.1))).exp();
    (
        Some(p99.round() as u64),
        format!("between {} and {}", lo.2, hi.2),
    )
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// The placements of the adaptive methods among `points` (one wait's).
pub fn place_all(points: &[FrontierPoint]) -> Vec<Placement> {
    let frontier = frontier(points);
    let order = sweep_order(points);
    let default = points
        .iter()
        .find(|p| p.family == Family::SpinSleep && p.default && p.summary.lateness.samples > 0);
    points
        .iter()
        .filter(|p| matches!(p.family, Family::Hybrid | Family::AsyncSpin))
        .filter(|p| p.summary.lateness.samples > 0)
        .map(|p| {
            let cpu = p.summary.cpu_ns_per_wait;
            let p99 = p.summary.lateness.p99_ns;
            let (frontier_p99_ns, frontier_basis) = frontier_at(&frontier, cpu);
            let theirs = default.map(|d| (d.summary.cpu_ns_per_wait, d.summary.lateness.p99_ns));
            Placement {
                method: p.label.clone(),
                wait_ns: p.wait_ns,
                cpu_ns_per_wait: cpu,
                p99_ns: p99,
                frontier_p99_ns,
                frontier_basis,
                p99_to_frontier: frontier_p99_ns.and_then(|f| ratio(p99, f)),
                spin_sleep_default_cpu_ns_per_wait: theirs.map(|t| t.0),
                spin_sleep_default_p99_ns: theirs.map(|t| t.1),
                cpu_to_spin_sleep: theirs.and_then(|t| ratio(cpu, t.0)),
                p99_to_spin_sleep: theirs.and_then(|t| ratio(p99, t.1)),
                sweep_order: order,
                fit: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corners() -> Vec<Corner<'static>> {
        vec![(10_000, 10_000, "a"), (20_000, 100, "b"), (40_000, 10, "c")]
    }

    #[test]
    fn between_two_margins_the_p99_is_read_off_a_straight_line_on_the_log_axis() {
        assert_eq!(frontier_at(&corners(), 15_000).0, Some(1_000));
        assert_eq!(frontier_at(&corners(), 30_000).0, Some(32));
        assert_eq!(frontier_at(&corners(), 20_000).0, Some(100));
        assert_eq!(frontier_at(&corners(), 15_000).1, "between a and b");
    }

    fn margin(setting_us: u64, p99_ns: u64) -> FrontierPoint {
        let mut p = point(Family::FixedMargin, "m", setting_us * 1_000, p99_ns);
        p.setting_ns = Some(setting_us * 1_000);
        p
    }

    #[test]
    fn the_sweep_order_says_whether_the_tail_follows_the_margin() {
        let falling: Vec<_> = [(0, 900), (10, 500), (20, 90), (40, 30)]
            .map(|(m, p99)| margin(m, p99))
            .into();
        assert_eq!(sweep_order(&falling), Some(-1.0));
        // Stalls past every margin: the p99s are draws in no order.
        let unordered: Vec<_> = [(0, 1_440), (10, 1_140), (20, 1_860), (40, 1_380)]
            .map(|(m, p99)| margin(m, p99))
            .into();
        let r = sweep_order(&unordered).unwrap();
        assert!(r.abs() < 0.3, "{r}");
        // Ties share their mean rank; equal p99s have no order.
        let flat: Vec<_> = [(0, 5), (10, 5), (20, 5)]
            .map(|(m, p99)| margin(m, p99))
            .into();
        assert_eq!(sweep_order(&flat), Some(0.0));
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), [2.5, 0.0, 2.5, 1.0]);
        // Too few margins, or none, say nothing.
        assert_eq!(sweep_order(&falling[..2]), None);
        assert_eq!(sweep_order(&[]), None);
    }

    fn point(family: Family, label: &str, cpu_ns: u64, p99_ns: u64) -> FrontierPoint {
        let mut recorder = crate::bench::stats::Recorder::default();
        recorder.record(crate::bench::stats::Sample {
            lateness_ns: p99_ns as i64,
            cpu_ns,
            self_reported_ns: None,
        });
        FrontierPoint {
            family,
            label: label.to_string(),
            ours: true,
            setting_ns: None,
            default: family == Family::SpinSleep,
            wait_ns: 1_000_000,
            summary: recorder.summary(),
            cpu_share: 0.0,
            lateness_percentiles: Vec::new(),
            rounds: Vec::new(),
            over_rounds: None,
        }
    }

    #[test]
    fn a_margin_that_a_cheaper_one_beats_is_not_on_the_frontier() {
        let points = [
            point(Family::FixedMargin, "m0", 10_000, 10_000),
            point(Family::FixedMargin, "m1", 20_000, 100),
            // Costlier than m1 and worse: off the frontier, so not interpolated through.
            point(Family::FixedMargin, "m2", 30_000, 5_000),
            point(Family::FixedMargin, "m3", 40_000, 10),
            point(Family::SpinSleep, "s", 20_000, 400),
            point(Family::Hybrid, "hybrid", 30_000, 64),
        ];
        let [placement] = place_all(&points).try_into().unwrap();
        assert_eq!(placement.frontier_p99_ns, Some(32));
        assert_eq!(placement.frontier_basis, "between m1 and m3");
        assert_eq!(placement.p99_to_frontier, Some(2.0));
        assert_eq!(placement.cpu_to_spin_sleep, Some(1.5));
        assert_eq!(placement.p99_to_spin_sleep, Some(0.16));
    }

    #[test]
    fn past_the_costliest_margin_the_frontier_is_flat_and_below_the_cheapest_it_is_that() {
        assert_eq!(frontier_at(&corners(), 90_000).0, Some(10));
        let (p99, basis) = frontier_at(&corners(), 5_000);
        assert_eq!(p99, Some(10_000));
        assert!(
            basis.starts_with("at the cheapest fixed margin, a"),
            "{basis}"
        );
        assert_eq!(frontier_at(&[], 5_000).0, None);
    }
}
