//! Reading what a plain OS sleep costs: whether it is quantised (Windows' `Sleep` on the
//! 15.625 ms system tick), and which requests land in the middle of a band.
//!
//! [`probe`] times the OS's plain sleep back to back ([`probe_with`] a sleep of the
//! caller's, such as a script host's; [`probe_on`] on the caller's clock too) and returns a [`Probe`]: the costs, the floor, the
//! quantum if any, and the cheat sheet of mid-band requests. Every client's probe is this
//! one (the C `punctual_probe`, Python's `punctual.probe()`, Lua's `punctual.probe()`).
//! The arithmetic is public too: [`detect`] reads a quantum from costs measured some other
//! way, and [`mid_band_ms`] and [`cheat_sheet`] pick poll steps from it.
//!
//! ```
//! use std::time::Duration;
//! use punctual::quantum;
//!
//! let ms = Duration::from_millis;
//! let costs = [(ms(1), ms(16)), (ms(5), ms(16)), (ms(10), ms(16)), (ms(20), ms(31))];
//! let tick = quantum::detect(&costs).expect("quantised");
//! assert_eq!(quantum::mid_band_ms(tick, 1), Some(8));
//! ```

mod probe;

use std::time::Duration;

pub use probe::{
    probe, probe_on, probe_with, Cost, Probe, DEFAULT_SAMPLES, PLAIN_SLEEP, REQUESTS_MS,
};

/// The sleep quantum the costs show, if any: `sleep(1 ms)` costing at least twice what was
/// asked, and four in five requests of 1 ms or more costing a whole number of that quantum
/// (within 15% of it), never less than asked. The quantum is the median of the costs each
/// divided by its number of quanta.
///
/// `costs` pairs each request with its mean back-to-back cost; it must hold a 1 ms request
/// (without one there is nothing to compare against, and the answer is `None`).
pub fn detect(costs: &[(Duration, Duration)]) -> Option<Duration> {
    let one_ms = Duration::from_millis(1);
    let &(_, first) = costs.iter().find(|(request, _)| *request == one_ms)?;
    if first < 2 * one_ms {
        return None;
    }
    let first_ns = first.as_nanos() as f64;
    let mut per_quantum: Vec<f64> = costs
        .iter()
        .filter_map(|&(request, cost)| {
            let cost_ns = cost.as_nanos() as f64;
            let k = (cost_ns / first_ns).round().max(1.0);
            let whole = (cost_ns - k * first_ns).abs() <= 0.15 * first_ns;
            let not_short = k * first_ns >= request.as_nanos() as f64 * 0.98;
            (whole && not_short).then(|| cost_ns / k)
        })
        .collect();
    if per_quantum.len() * 5 < costs.len() * 4 {
        return None;
    }
    per_quantum.sort_by(f64::total_cmp);
    Some(Duration::from_nanos(
        per_quantum[per_quantum.len() / 2].round() as u64,
    ))
}

/// The whole-millisecond request in the middle of the `k`-th band of `quantum`,
/// `n_k = round(q * k - q / 2)`: the safest from the jitter at a tick edge, where a request
/// costs one quantum or two by chance. `None` for `k = 0` (there is no band below the first)
/// or a result past `u64::MAX` milliseconds.
pub fn mid_band_ms(quantum: Duration, k: u32) -> Option<u64> {
    if k == 0 {
        return None;
    }
    let q_ms = quantum.as_secs_f64() * 1e3;
    let n = (q_ms * f64::from(k) - q_ms / 2.0).round();
    (n < u64::MAX as f64).then_some(n as u64)
}

/// One band of a quantum's cheat sheet: asking for `request_ms` costs about `k` quanta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// The number of quanta, from 1.
    pub k: u32,
    /// The request in the middle of the band, [`mid_band_ms`].
    pub request_ms: u64,
    /// What such a sleep costs: `k` quanta.
    pub cost: Duration,
}

impl Band {
    /// How many such sleeps fit in a second.
    pub fn rate_hz(&self) -> f64 {
        1e9 / self.cost.as_nanos() as f64
    }
}

/// The first `bands` bands of `quantum`, `k = 1..=bands`: the cheat sheet of mid-band
/// requests. Fewer where `k` quanta would pass what a [`Duration`] or [`mid_band_ms`] holds;
/// none for a zero quantum.
///
/// ```
/// use std::time::Duration;
/// use punctual::quantum;
///
/// let sheet = quantum::cheat_sheet(Duration::from_micros(15_625), 3);
/// let requests: Vec<u64> = sheet.iter().map(|b| b.request_ms).collect();
/// assert_eq!(requests, [8, 23, 39]);
/// assert_eq!(sheet[1].cost, Duration::from_micros(31_250));
/// ```
pub fn cheat_sheet(quantum: Duration, bands: u32) -> Vec<Band> {
    if quantum.is_zero() {
        return Vec::new();
    }
    (1..=bands)
        .map_while(|k| {
            Some(Band {
                k,
                request_ms: mid_band_ms(quantum, k)?,
                cost: quantum.checked_mul(k)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(v: u64) -> Duration {
        Duration::from_nanos(v)
    }

    #[test]
    fn the_seed_table_is_quantised_at_one_tick() {
        // Back-to-back costs from the Cheat Engine post.
        let costs = [
            (ns(1_000_000), ns(15_470_000)),
            (ns(2_000_000), ns(15_460_000)),
            (ns(5_000_000), ns(15_470_000)),
            (ns(10_000_000), ns(15_470_000)),
            (ns(15_000_000), ns(19_690_000)),
            (ns(16_000_000), ns(30_160_000)),
            (ns(20_000_000), ns(30_940_000)),
            (ns(30_000_000), ns(31_560_000)),
        ];
        let q = detect(&costs).expect("quantised");
        assert!((ns(15_400_000)..=ns(15_700_000)).contains(&q), "{q:?}");
    }

    #[test]
    fn high_resolution_sleeps_are_not_quantised() {
        let costs = [
            (ns(1_000_000), ns(1_060_000)),
            (ns(2_000_000), ns(2_062_000)),
            (ns(10_000_000), ns(10_070_000)),
        ];
        assert_eq!(detect(&costs), None);
    }

    #[test]
    fn without_a_one_millisecond_request_there_is_no_verdict() {
        assert_eq!(detect(&[]), None);
        assert_eq!(detect(&[(ns(2_000_000), ns(15_600_000))]), None);
    }

    #[test]
    fn a_quantum_cheaper_than_the_request_is_not_one() {
        // 30 ms "costing" one 15.6 ms quantum would be an early wake, not a tick.
        let costs = [
            (ns(1_000_000), ns(15_600_000)),
            (ns(30_000_000), ns(15_600_000)),
        ];
        assert_eq!(detect(&costs), None);
    }

    #[test]
    fn mid_band_requests_are_the_seeds() {
        let q = ns(15_625_000);
        let requests: Vec<u64> = (1..=10).filter_map(|k| mid_band_ms(q, k)).collect();
        assert_eq!(requests, [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]);
        assert_eq!(mid_band_ms(q, 16), Some(242));
        assert_eq!(mid_band_ms(q, 0), None);
        assert_eq!(mid_band_ms(Duration::MAX, u32::MAX), None);
    }

    #[test]
    fn the_cheat_sheet_stops_where_its_numbers_would_overflow() {
        let sheet = cheat_sheet(ns(15_625_000), 16);
        assert_eq!(sheet.len(), 16);
        assert_eq!((sheet[15].k, sheet[15].request_ms), (16, 242));
        assert_eq!(sheet[7].rate_hz(), 8.0);
        assert!(cheat_sheet(Duration::ZERO, 10).is_empty());
        assert!(cheat_sheet(ns(1), 0).is_empty());
        let huge = cheat_sheet(Duration::MAX / 2, 10);
        assert_eq!(huge.len(), 0, "{huge:?}");
        // Its mid-band request passes u64::MAX ms at the third band.
        assert_eq!(
            cheat_sheet(Duration::from_secs(10_000_000_000_000_000), 5).len(),
            2
        );
    }
}
