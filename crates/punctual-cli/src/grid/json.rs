//! `--json FILE`: the rt-tests JSON layout, as `cyclictest --json` (rt-tests 2.x) writes it,
//! with punctual's percentiles and settings added where a reader of that layout ignores them.
//!
//! The keys `"cmdline:"` and `"rt_test_version:"` really end in a colon in rt-tests' output
//! (`rt_write_json` in `src/lib/rt-utils.c`); tools that read its files expect them so.
//! Numbers are in microseconds, truncated (`resolution_in_ns` is 0), as cyclictest's are.

use std::time::SystemTime;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::stats::LatencyHistogram;
use super::GridReport;
use crate::environment::Environment;

#[derive(Serialize)]
struct RtTestsReport<'a> {
    file_version: u32,
    #[serde(rename = "cmdline:")]
    cmdline: &'a str,
    #[serde(rename = "rt_test_version:")]
    rt_test_version: &'a str,
    start_time: String,
    end_time: String,
    return_code: i32,
    sysinfo: SysInfo<'a>,
    num_threads: usize,
    resolution_in_ns: u32,
    thread: Threads<'a>,
    /// What only punctual reports.
    punctual: Extra<'a>,
}

#[derive(Serialize)]
struct SysInfo<'a> {
    sysname: &'a str,
    nodename: &'a str,
    release: &'a str,
    version: &'a str,
    machine: &'a str,
    realtime: u8,
}

/// `{"0": {...}, "1": {...}}`, in thread order (a sorted map would put "10" before "2").
struct Threads<'a>(Vec<ThreadEntry<'a>>);

impl Serialize for Threads<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (i, thread) in self.0.iter().enumerate() {
            map.serialize_entry(&i.to_string(), thread)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct ThreadEntry<'a> {
    histogram: Bins<'a>,
    cycles: u64,
    min: u64,
    max: u64,
    avg: f64,
    /// The CPU the thread was pinned to; -1 when it was not pinned.
    cpu: i64,
    /// punctual places no memory by NUMA node: always -1.
    node: i64,
    // punctual's own, in nanoseconds:
    tid: u64,
    p50_ns: u64,
    p99_ns: u64,
    p999_ns: u64,
    missed: u64,
    scheduling: Option<&'a str>,
}

/// `{"12": 6, "13": 102}`: the non-empty bins, in order; `{}` without `--histogram`.
struct Bins<'a>(Option<&'a LatencyHistogram>);

impl Serialize for Bins<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let bins = self.0.map_or(&[][..], |h| &h.bins[..]);
        for (us, &count) in bins.iter().enumerate().filter(|(_, &c)| c > 0) {
            map.serialize_entry(&us.to_string(), &count)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Extra<'a> {
    strategy: &'a str,
    interval_ns: u64,
    priority: Option<i32>,
    mlock: bool,
    dma_latency_us: Option<u32>,
    wall_ns: u64,
    /// Share of the machine's CPU time that other processes used during the run.
    other_load: Option<f64>,
    interrupted: bool,
    warnings: &'a [String],
    environment: &'a Environment,
}

/// rt-tests' time stamps: `Sun, 29 Nov 2026 18:28:24 +0000` (`%a, %d %b %Y %T %z`), in UTC.
fn timestamp(time: SystemTime) -> String {
    let date = httpdate::fmt_http_date(time);
    match date.strip_suffix(" GMT") {
        Some(utc) => format!("{utc} +0000"),
        None => date,
    }
}

/// cyclictest prints the average with two decimals.
fn two_decimals(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

pub fn render(report: &GridReport) -> anyhow::Result<Vec<u8>> {
    let options = &report.options;
    let system = &report.system;
    let rt = RtTestsReport {
        file_version: 1,
        cmdline: &options.cmdline,
        rt_test_version: &report.environment.punctual_version,
        start_time: timestamp(report.started),
        end_time: timestamp(report.ended),
        return_code: 0,
        sysinfo: SysInfo {
            sysname: &system.sysname,
            nodename: &system.nodename,
            release: &system.release,
            version: &system.version,
            machine: &system.machine,
            realtime: u8::from(report.environment.realtime_kernel == Some(true)),
        },
        num_threads: report.threads.len(),
        resolution_in_ns: 0,
        thread: Threads(
            report
                .threads
                .iter()
                .map(|t| {
                    let q = t.stats.percentiles();
                    ThreadEntry {
                        histogram: Bins(t.stats.histogram.as_ref()),
                        cycles: t.stats.cycles,
                        min: t.stats.min_us,
                        max: t.stats.max_us,
                        avg: two_decimals(t.stats.avg_us()),
                        cpu: t.cpu.map_or(-1, |c| c as i64),
                        node: -1,
                        tid: t.tid,
                        p50_ns: q.p50_ns,
                        p99_ns: q.p99_ns,
                        p999_ns: q.p999_ns,
                        missed: t.stats.missed,
                        scheduling: t.scheduling.as_deref(),
                    }
                })
                .collect(),
        ),
        punctual: Extra {
            strategy: options.strategy.name(),
            interval_ns: options.interval.as_nanos() as u64,
            priority: options.priority,
            mlock: options.mlock,
            dma_latency_us: options.dma_latency_us,
            wall_ns: report.wall.as_nanos() as u64,
            other_load: report.other_load,
            interrupted: report.interrupted,
            warnings: &report.warnings,
            environment: &report.environment,
        },
    };
    let mut bytes = serde_json::to_vec_pretty(&rt)?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_read_as_rt_tests_writes_them() {
        let at = |secs| timestamp(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 +0000");
        assert_eq!(at(1_700_000_000), "Tue, 14 Nov 2023 22:13:20 +0000");
    }
}
