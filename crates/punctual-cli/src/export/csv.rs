use std::fmt::Write;

use super::Exporter;
use crate::bench::{Mode, Report, RunMode};

/// One row per method and wait (in scale mode, per method and N); nanoseconds throughout.
pub struct CsvExporter;

const HEADER: &str = "method,ours,wait_ns,mode,samples,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,early,early_max_ns,missed,cpu_ns_per_wait,cpu_share";

const SCALE_HEADER: &str = "method,ours,timers,rounds,samples,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,early,cpu_ns_per_timer,driver_cpu_ns_per_timer,driver_fire_lateness_mean_ns,rss_bytes_per_timer,timer_bytes,setup_overran,executor_floor_ns_per_task";

/// A field that may be unknown: empty when it is.
fn maybe<T: ToString>(value: Option<T>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

/// The scale mode's rows: one per method and N.
fn scale(report: &Report) -> anyhow::Result<Vec<u8>> {
    let mut out = String::from(SCALE_HEADER);
    out.push('\n');
    for r in &report.scale {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.method,
            r.ours,
            r.timers,
            r.rounds,
            r.samples,
            r.min_ns,
            r.mean_ns,
            r.p50_ns,
            r.p90_ns,
            r.p99_ns,
            r.p999_ns,
            r.max_ns,
            r.early,
            maybe(r.cpu_ns_per_timer),
            maybe(r.driver_cpu_ns_per_timer),
            maybe(r.driver_fire_lateness_mean_ns),
            maybe(r.rss_bytes_per_timer),
            r.timer_bytes,
            r.setup_overran,
            maybe(r.executor_floor_ns_per_task),
        )?;
    }
    Ok(out.into_bytes())
}

impl Exporter for CsvExporter {
    fn serialize(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        if report.run.mode == RunMode::Scale {
            return scale(report);
        }
        let mut out = String::from(HEADER);
        out.push('\n');
        for r in &report.results {
            let s = &r.summary;
            let mode = match r.mode {
                Mode::Single => "single",
                Mode::Grid => "grid",
            };
            writeln!(
                out,
                "{},{},{},{mode},{},{},{},{},{},{},{},{},{},{},{},{},{:.6}",
                r.method,
                r.ours,
                r.wait_ns,
                s.samples,
                s.min_ns,
                s.mean_ns,
                s.p50_ns,
                s.p90_ns,
                s.p99_ns,
                s.p999_ns,
                s.max_ns,
                s.early,
                s.early_max_ns,
                s.missed,
                s.cpu_ns_per_wait,
                r.cpu_share
            )?;
        }
        Ok(out.into_bytes())
    }
}
