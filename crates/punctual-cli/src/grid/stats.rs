//! One measuring thread's results, kept as cyclictest keeps them (whole microseconds,
//! truncated, as its `calcdiff` does) and, beside them, in nanoseconds for the percentiles.

use std::time::Duration;

use crate::bench::stats::{Recorder, Sample};

/// cyclictest's `-h` histogram: a bin per microsecond below `max_us`, and what did not fit.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    /// Wake-ups `i` microseconds late, for `i` below the histogram's size.
    pub bins: Vec<u64>,
    /// Wake-ups at or past the last bin.
    pub overflows: u64,
    /// The cycle numbers (from 0) of the first overflows; as many as there are bins.
    pub overflow_cycles: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct ThreadStats {
    /// Wake-ups measured (cyclictest's `C:`).
    pub cycles: u64,
    pub min_us: u64,
    pub max_us: u64,
    /// The last wake-up's lateness (cyclictest's `Act:`).
    pub act_us: u64,
    /// Sum of the truncated microsecond latenesses, from which cyclictest takes its average.
    pub sum_us: u128,
    /// Periods skipped because a wake-up came after the next one was due.
    pub missed: u64,
    pub histogram: Option<LatencyHistogram>,
    lateness: Recorder,
}

/// Lateness percentiles in nanoseconds, to 3 significant figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percentiles {
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
}

impl ThreadStats {
    /// Empty statistics, with a histogram of `histogram_us` one-microsecond bins if asked.
    pub fn new(histogram_us: Option<u32>) -> ThreadStats {
        ThreadStats {
            cycles: 0,
            min_us: 0,
            max_us: 0,
            act_us: 0,
            sum_us: 0,
            missed: 0,
            histogram: histogram_us.map(|size| LatencyHistogram {
                bins: vec![0; size as usize],
                overflows: 0,
                overflow_cycles: Vec::new(),
            }),
            lateness: Recorder::default(),
        }
    }

    /// Counts one wake-up, `lateness` after its deadline, that came after `missed` skipped
    /// periods.
    pub fn record(&mut self, lateness: Duration, missed: u64) {
        let ns = punctual::saturating_nanos(lateness);
        let us = ns / 1000;
        self.min_us = if self.cycles == 0 {
            us
        } else {
            self.min_us.min(us)
        };
        self.max_us = self.max_us.max(us);
        self.act_us = us;
        self.sum_us += u128::from(us);
        self.missed += missed;
        if let Some(histogram) = &mut self.histogram {
            match histogram.bins.get_mut(us as usize) {
                Some(bin) => *bin += 1,
                None => {
                    histogram.overflows += 1;
                    if histogram.overflow_cycles.len() < histogram.bins.len() {
                        histogram.overflow_cycles.push(self.cycles);
                    }
                }
            }
        }
        self.lateness.record(Sample {
            lateness_ns: i64::try_from(ns).unwrap_or(i64::MAX),
            cpu_ns: 0,
            self_reported_ns: None,
        });
        self.cycles += 1;
    }

    /// cyclictest's average: the mean of the truncated microseconds.
    pub fn avg_us(&self) -> f64 {
        if self.cycles == 0 {
            0.0
        } else {
            self.sum_us as f64 / self.cycles as f64
        }
    }

    pub fn percentiles(&self) -> Percentiles {
        let summary = self.lateness.summary();
        Percentiles {
            p50_ns: summary.lateness.p50_ns,
            p99_ns: summary.lateness.p99_ns,
            p999_ns: summary.lateness.p999_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(n: u64) -> Duration {
        Duration::from_nanos(n)
    }

    #[test]
    fn microseconds_are_truncated_as_cyclictest_does() {
        let mut stats = ThreadStats::new(None);
        for (lateness, missed) in [(ns(1_999), 0), (ns(12_500), 2), (ns(1_500), 0)] {
            stats.record(lateness, missed);
        }
        assert_eq!(
            (stats.cycles, stats.min_us, stats.max_us, stats.act_us),
            (3, 1, 12, 1)
        );
        assert_eq!((stats.sum_us, stats.missed), (14, 2));
        assert!((stats.avg_us() - 14.0 / 3.0).abs() < 1e-9);
        // Exact below 2048 ns, 3 significant figures above.
        assert_eq!(stats.percentiles().p50_ns, 1_999);
    }

    #[test]
    fn the_histogram_counts_overflows_and_their_cycles() {
        let mut stats = ThreadStats::new(Some(2));
        for us in [0, 1, 1, 2, 7, 1, 9, 5] {
            stats.record(Duration::from_micros(us), 0);
        }
        let histogram = stats.histogram.unwrap();
        assert_eq!(histogram.bins, [1, 3]);
        assert_eq!(histogram.overflows, 4);
        // Only as many cycle numbers as there are bins are kept, as cyclictest does.
        assert_eq!(histogram.overflow_cycles, [3, 4]);
    }
}
