use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// A report as its export file holds it: pretty, ending in a newline.
pub fn bytes(report: &impl Serialize) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(report)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// One point of a lateness distribution: this share of waits woke at most so late.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct PercentilePoint {
    /// The percentile, 0 to 100.
    pub percentile: f64,
    /// The lateness at it (to the histogram's 3 significant figures; early wakes count as 0).
    pub lateness_ns: u64,
}

/// Where the distribution's points are taken: even steps through the body, ever finer into
/// the tail, where the methods differ.
const PERCENTILES: [f64; 22] = [
    0.0, 1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 97.0, 98.0, 99.0,
    99.5, 99.8, 99.9, 99.95, 99.99, 100.0,
];

pub fn percentiles(histogram: &Histogram<u64>) -> Vec<PercentilePoint> {
    if histogram.is_empty() {
        return Vec::new();
    }
    PERCENTILES
        .iter()
        .map(|&percentile| PercentilePoint {
            percentile,
            lateness_ns: match percentile {
                p if p <= 0.0 => histogram.min(),
                p if p >= 100.0 => histogram.max(),
                p => histogram.value_at_quantile(p / 100.0),
            },
        })
        .collect()
}
