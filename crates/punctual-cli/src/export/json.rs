use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bench::Report;

/// The wait table's report as the JSON export holds it: `{"environment": {...}, "run":
/// {...}, "results": [...], "recommendation": ..., "notes": [...], "command": [...]}`; each
/// result also carries its `lateness_percentiles`, the points of its lateness distribution,
/// so that `punctual report` can draw it from the file.
pub fn to_value(report: &Report, command: &[String]) -> anyhow::Result<Value> {
    let mut value = serde_json::to_value(report)?;
    if let Some(Value::Array(results)) = value.get_mut("results") {
        for (result, histogram) in results.iter_mut().zip(&report.histograms) {
            if let Value::Object(fields) = result {
                fields.insert(
                    "lateness_percentiles".into(),
                    serde_json::to_value(percentiles(histogram))?,
                );
            }
        }
    }
    with_command(&mut value, command);
    Ok(value)
}

/// A report of any mode whose export is the report itself (a frontier or threads run) as
/// its JSON export holds it: with the `"command"`.
pub fn export_value(report: &impl Serialize, command: &[String]) -> anyhow::Result<Value> {
    let mut value = serde_json::to_value(report)?;
    with_command(&mut value, command);
    Ok(value)
}

/// An export's value as its file is written: pretty, ending in a newline.
pub fn bytes(value: &Value) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Adds `"command"`: the words of the command line that made the run (the program as
/// `punctual`: its path says nothing about the run), as the run's context holds them.
fn with_command(value: &mut Value, command: &[String]) {
    if let Value::Object(fields) = value {
        fields.insert("command".into(), command.into());
    }
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
