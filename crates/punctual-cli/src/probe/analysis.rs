//! Reading the table: the floor, whether sleeps are quantised and by what, and the cheat
//! sheet of mid-band requests.

use std::time::Duration;

use punctual::quantum;
use serde::Serialize;

/// One row of the cheat sheet: asking for `request_ms` costs about `k` quanta.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheatRow {
    pub k: u32,
    pub request_ms: u64,
    pub actual_ns: u64,
    pub rate_hz: f64,
}

/// `n_k = round(q * k - q / 2)`, in milliseconds ([`punctual::quantum::mid_band_ms`]): the
/// request in the middle of the k-th band, the safest from the jitter at a tick edge.
pub fn cheat_sheet(quantum_ns: u64) -> Vec<CheatRow> {
    let quantum = Duration::from_nanos(quantum_ns);
    (1..=10)
        .map(|k| {
            let actual_ns = quantum_ns * u64::from(k);
            CheatRow {
                k,
                request_ms: quantum::mid_band_ms(quantum, k).unwrap_or(u64::MAX),
                actual_ns,
                rate_hz: 1e9 / actual_ns as f64,
            }
        })
        .collect()
}

/// Back-to-back mean cost per request, for requests of at least 1 ms.
pub type Costs = [(u64, u64)];

/// A sleep quantum, if the costs show one ([`punctual::quantum::detect`]).
pub fn detect_quantum(costs: &Costs) -> Option<u64> {
    let costs: Vec<(Duration, Duration)> = costs
        .iter()
        .map(|&(request_ns, cost_ns)| {
            (
                Duration::from_nanos(request_ns),
                Duration::from_nanos(cost_ns),
            )
        })
        .collect();
    quantum::detect(&costs).map(|q| q.as_nanos() as u64)
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
        let q = detect_quantum(&costs).expect("quantised");
        assert!((15_400_000..=15_700_000).contains(&q), "{q}");
    }

    #[test]
    fn high_resolution_sleeps_are_not_quantised() {
        let costs = [
            (1_000_000, 1_060_000),
            (2_000_000, 2_062_000),
            (10_000_000, 10_070_000),
        ];
        assert_eq!(detect_quantum(&costs), None);
    }

    #[test]
    fn the_cheat_sheet_is_the_seeds() {
        let rows = cheat_sheet(15_625_000);
        let requests: Vec<u64> = rows.iter().map(|r| r.request_ms).collect();
        assert_eq!(requests, [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]);
        assert_eq!(rows[0].actual_ns, 15_625_000);
    }
}
