//! Lateness statistics: an HDR histogram of how late each wait woke, with early wakes
//! counted apart (a histogram cannot hold a negative value, and an early wake is a different
//! failure, not a small lateness).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// One measured wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The harness's clock reading after the method returned, minus the deadline; negative
    /// for an early wake.
    pub lateness_ns: i64,
    /// CPU time the wait used.
    pub cpu_ns: u64,
    /// The method's own wake reading minus the deadline, where it reports one.
    pub self_reported_ns: Option<i64>,
}

/// Collects the samples of one method at one wait length.
#[derive(Debug, Clone)]
pub struct Recorder {
    histogram: Histogram<u64>,
    count: u64,
    min_ns: i64,
    /// Exact, where the histogram's top bucket is only good to 3 significant figures.
    max_ns: u64,
    sum_ns: i128,
    early: u64,
    early_max_ns: u64,
    cpu_sum_ns: u128,
    missed: u64,
    wall_ns: u128,
    /// The methods' own wake readings (punctual's `Wake::woke`), where they report them.
    self_reported: Option<Histogram<u64>>,
}

/// The longest lateness the histogram holds exactly to 3 significant figures; beyond it
/// values saturate (an hour late is reported as an hour).
const HIGHEST_NS: u64 = 3_600_000_000_000;

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            histogram: histogram(),
            count: 0,
            min_ns: i64::MAX,
            max_ns: 0,
            sum_ns: 0,
            early: 0,
            early_max_ns: 0,
            cpu_sum_ns: 0,
            missed: 0,
            wall_ns: 0,
            self_reported: None,
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_NS, 3).expect("valid histogram bounds")
}

impl Recorder {
    pub fn record(&mut self, sample: Sample) {
        self.count += 1;
        self.min_ns = self.min_ns.min(sample.lateness_ns);
        self.sum_ns += i128::from(sample.lateness_ns);
        self.cpu_sum_ns += u128::from(sample.cpu_ns);
        if sample.lateness_ns < 0 {
            self.early += 1;
            self.early_max_ns = self.early_max_ns.max(sample.lateness_ns.unsigned_abs());
        }
        let late = sample.lateness_ns.max(0) as u64;
        self.max_ns = self.max_ns.max(late);
        self.histogram.saturating_record(late.min(HIGHEST_NS));
        if let Some(reported_ns) = sample.self_reported_ns {
            let reported = reported_ns.max(0) as u64;
            self.self_reported
                .get_or_insert_with(histogram)
                .saturating_record(reported.min(HIGHEST_NS));
        }
    }

    /// Grid points skipped because the method woke too late to make them.
    pub fn add_missed(&mut self, missed: u64) {
        self.missed += missed;
    }

    /// Wall time spent measuring, to stop a time-boxed run.
    pub fn add_wall(&mut self, wall_ns: u128) {
        self.wall_ns += wall_ns;
    }

    /// Adds `other`'s samples to these, as if each had been recorded here.
    pub fn merge(&mut self, other: &Recorder) {
        if other.count > 0 {
            self.min_ns = self.min_ns.min(other.min_ns);
        }
        self.count += other.count;
        self.max_ns = self.max_ns.max(other.max_ns);
        self.sum_ns += other.sum_ns;
        self.early += other.early;
        self.early_max_ns = self.early_max_ns.max(other.early_max_ns);
        self.cpu_sum_ns += other.cpu_sum_ns;
        self.missed += other.missed;
        self.wall_ns += other.wall_ns;
        // Both histograms have the same bounds, so adding one to the other cannot fail.
        let _ = self.histogram.add(&other.histogram);
        if let Some(theirs) = &other.self_reported {
            let _ = self.self_reported.get_or_insert_with(histogram).add(theirs);
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn wall_ns(&self) -> u128 {
        self.wall_ns
    }

    pub fn histogram(&self) -> &Histogram<u64> {
        &self.histogram
    }

    pub fn summary(&self) -> Summary {
        // A bucket's value is the highest it stands for, which can be past the greatest
        // sample: no percentile is reported above the exact maximum.
        let q = |quantile| self.histogram.value_at_quantile(quantile).min(self.max_ns);
        let n = self.count.max(1);
        Summary {
            lateness: Lateness {
                samples: self.count,
                min_ns: if self.count == 0 { 0 } else { self.min_ns },
                mean_ns: (self.sum_ns / i128::from(n)) as i64,
                p50_ns: q(0.5),
                p90_ns: q(0.9),
                p99_ns: q(0.99),
                p999_ns: q(0.999),
                max_ns: self.max_ns,
                early: self.early,
            },
            early_max_ns: self.early_max_ns,
            missed: self.missed,
            cpu_ns_per_wait: (self.cpu_sum_ns / u128::from(n)) as u64,
            self_reported_p50_ns: self
                .self_reported
                .as_ref()
                .map(|h| h.value_at_quantile(0.5)),
            self_reported_p99_ns: self
                .self_reported
                .as_ref()
                .map(|h| h.value_at_quantile(0.99)),
        }
    }
}

/// How late the samples were (a sample is a wait, or in scale mode a timer): the
/// lateness columns of every results row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lateness {
    /// Samples measured.
    pub samples: u64,
    /// Least lateness (the clock read after the wait, minus the deadline); negative when a
    /// sample ended early.
    pub min_ns: i64,
    /// Mean lateness, early samples counted as negative.
    pub mean_ns: i64,
    /// Median lateness (early samples count as 0 in the percentiles).
    pub p50_ns: u64,
    /// 90th percentile of lateness.
    pub p90_ns: u64,
    /// 99th percentile of lateness.
    pub p99_ns: u64,
    /// 99.9th percentile of lateness.
    pub p999_ns: u64,
    /// Greatest lateness.
    pub max_ns: u64,
    /// Samples that ended before their deadline.
    pub early: u64,
}

/// The numbers a results row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    #[serde(flatten)]
    pub lateness: Lateness,
    /// How early the earliest of them was.
    pub early_max_ns: u64,
    /// Grid points skipped (grid mode) because a wait woke after the next one.
    pub missed: u64,
    /// CPU time per wait, on the waiting thread plus any helper thread of the method.
    pub cpu_ns_per_wait: u64,
    /// Median lateness by the method's own wake reading (punctual's `Wake::woke`), taken
    /// before it returned to the caller; the lateness columns are the caller's reading.
    /// `null` for methods that report none.
    pub self_reported_p50_ns: Option<u64>,
    /// 99th percentile lateness by the method's own wake reading.
    pub self_reported_p99_ns: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_recorders_are_one_recorder_of_every_sample() {
        let (mut all, mut first, mut second) = (
            Recorder::default(),
            Recorder::default(),
            Recorder::default(),
        );
        for (i, lateness_ns) in [100, -20, 3_000, 50, 700].into_iter().enumerate() {
            let sample = Sample {
                lateness_ns,
                cpu_ns: 10 * i as u64,
                self_reported_ns: (i % 2 == 0).then_some(lateness_ns / 2),
            };
            all.record(sample);
            if i < 2 { &mut first } else { &mut second }.record(sample);
        }
        let mut merged = Recorder::default();
        merged.merge(&first);
        merged.merge(&second);
        assert_eq!(merged.summary(), all.summary());
        assert_eq!(merged.histogram(), all.histogram());
    }

    #[test]
    fn early_wakes_are_counted_apart_and_pull_min_and_mean_down() {
        let mut rec = Recorder::default();
        for lateness_ns in [100, 200, 300, -50] {
            rec.record(Sample {
                lateness_ns,
                cpu_ns: 1_000,
                self_reported_ns: None,
            });
        }
        let s = rec.summary();
        let l = s.lateness;
        assert_eq!(
            (l.samples, l.min_ns, l.mean_ns, l.early, s.early_max_ns),
            (4, -50, 137, 1, 50)
        );
        assert_eq!((l.p50_ns, l.max_ns, s.cpu_ns_per_wait), (100, 300, 1_000));
    }

    #[test]
    fn no_percentile_is_past_the_exact_maximum() {
        // 3,631,000 ns falls in a histogram bucket that stands for up to 3,631,103 ns.
        let mut rec = Recorder::default();
        for lateness_ns in [16_000, 55_000, 3_631_000] {
            rec.record(Sample {
                lateness_ns,
                cpu_ns: 0,
                self_reported_ns: None,
            });
        }
        let l = rec.summary().lateness;
        assert_eq!((l.p999_ns, l.max_ns), (3_631_000, 3_631_000));
        assert!(l.p99_ns <= l.max_ns);
    }

    #[test]
    fn small_latenesses_are_exact_to_the_nanosecond() {
        let mut rec = Recorder::default();
        for lateness_ns in 1..=1000 {
            rec.record(Sample {
                lateness_ns,
                cpu_ns: 0,
                self_reported_ns: None,
            });
        }
        let l = rec.summary().lateness;
        assert_eq!(
            (l.p50_ns, l.p90_ns, l.p99_ns, l.p999_ns, l.max_ns),
            (500, 900, 990, 999, 1000)
        );
    }
}
