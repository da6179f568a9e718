//! Reading the table: whether sleeps are quantised and by what, and the cheat sheet of
//! mid-band requests; the library's verdict ([`punctual::quantum::Probe`]) in the CLI's
//! nanoseconds.

use std::time::Duration;

use punctual::quantum::{self, Cost, Probe};
use serde::Serialize;

/// The bands the cheat sheet lists.
const BANDS: u32 = 10;

/// One row of the cheat sheet: asking for `request_ms` costs about `k` quanta.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheatRow {
    pub k: u32,
    pub request_ms: u64,
    pub actual_ns: u64,
    pub rate_hz: f64,
}

/// `n_k = round(q * k - q / 2)`, in milliseconds ([`punctual::quantum::cheat_sheet`]): the
/// request in the middle of the k-th band, the safest from the jitter at a tick edge.
pub fn cheat_sheet(quantum_ns: u64) -> Vec<CheatRow> {
    quantum::cheat_sheet(Duration::from_nanos(quantum_ns), BANDS)
        .iter()
        .map(|band| CheatRow {
            k: band.k,
            request_ms: band.request_ms,
            actual_ns: band.cost.as_nanos() as u64,
            rate_hz: band.rate_hz(),
        })
        .collect()
}

/// Back-to-back mean cost per request, for requests of at least 1 ms.
pub type Costs = [(u64, u64)];

/// What the back-to-back costs say, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The sleep quantum, if the costs show one.
    pub quantum_ns: Option<u64>,
    /// Without a quantum: the median cost past the request.
    pub overshoot_ns: Option<u64>,
}

/// The library's verdict on `costs` ([`Probe::from_costs`]).
pub fn verdict(costs: &Costs) -> Verdict {
    let costs: Vec<Cost> = costs
        .iter()
        .map(|&(request_ns, cost_ns)| Cost {
            request: Duration::from_nanos(request_ns),
            mean: Duration::from_nanos(cost_ns),
        })
        .collect();
    // The floor is the CLI's own, over both phases.
    let probe = Probe::from_costs(costs, Duration::ZERO);
    let ns = |d: Duration| d.as_nanos() as u64;
    Verdict {
        quantum_ns: probe.quantum.map(ns),
        overshoot_ns: probe.overshoot.map(ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_table_is_quantised_at_one_tick() {
        // Back-to-back costs from the Cheat Engine post, in ns.
        let costs = [
            (1_000_000, 15_470_000),
            (2_000_000, 15_460_000),
            (5_000_000, 15_470_000),
            (10_000_000, 15_470_000),
            (15_000_000, 19_690_000),
            (16_000_000, 30_160_000),
            (20_000_000, 30_940_000),
            (30_000_000, 31_560_000),
        ];
        let found = verdict(&costs);
        let q = found.quantum_ns.expect("quantised");
        assert!((15_400_000..=15_700_000).contains(&q), "{q}");
        assert_eq!(found.overshoot_ns, None);
    }

    #[test]
    fn high_resolution_sleeps_are_not_quantised() {
        let costs = [
            (1_000_000, 1_060_000),
            (2_000_000, 2_062_000),
            (10_000_000, 10_070_000),
        ];
        let found = verdict(&costs);
        assert_eq!(found.quantum_ns, None);
        assert_eq!(found.overshoot_ns, Some(62_000));
    }

    #[test]
    fn the_cheat_sheet_is_the_seeds() {
        let rows = cheat_sheet(15_625_000);
        let requests: Vec<u64> = rows.iter().map(|r| r.request_ms).collect();
        assert_eq!(requests, [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]);
        assert_eq!(rows[0].actual_ns, 15_625_000);
    }
}
