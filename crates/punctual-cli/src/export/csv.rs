use std::fmt::Write;

use crate::bench::scale::ScaleResult;
use crate::bench::stats::Lateness;
use crate::bench::{MethodResult, Mode, Report, RunMode};

const HEADER: &str = "method,ours,wait_ns,mode,samples,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,early,early_max_ns,missed,cpu_ns_per_wait,cpu_share,self_reported_p50_ns,self_reported_p99_ns";

/// The columns a run of rounds (`--repeat K`, K from 2) adds to each row: its rounds, then
/// each figure over the rounds with its interval's ends, the confidence asked, and, where the
/// rounds fall short of it, the most they support (empty otherwise).
const ROUNDS_HEADER: &str = ",rounds,p50_over_rounds_ns,p50_low_ns,p50_high_ns,p99_over_rounds_ns,p99_low_ns,p99_high_ns,p999_over_rounds_ns,p999_low_ns,p999_high_ns,cpu_ns_per_wait_over_rounds,cpu_ns_per_wait_low,cpu_ns_per_wait_high,confidence,reach";

/// A row's rounds columns (see [`ROUNDS_HEADER`]).
fn rounds(r: &MethodResult) -> String {
    let Some(over) = r.over_rounds else {
        return ",".repeat(ROUNDS_HEADER.matches(',').count());
    };
    let mut out = format!(",{}", over.rounds);
    for bounded in [over.p50_ns, over.p99_ns, over.p999_ns, over.cpu_ns_per_wait] {
        let _ = match bounded {
            Some(b) => write!(out, ",{:.0},{:.0},{:.0}", b.value, b.low, b.high),
            None => write!(out, ",,,"),
        };
    }
    let first = [over.p50_ns, over.p99_ns, over.p999_ns, over.cpu_ns_per_wait]
        .into_iter()
        .flatten()
        .next();
    let _ = write!(
        out,
        ",{},{}",
        maybe(first.map(|b| b.confidence)),
        maybe(first.and_then(|b| b.reach))
    );
    out
}

const SCALE_HEADER: &str = "method,ours,timers,rounds,samples,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,early,longest_stall_ns,stalls,cpu_ns_per_timer,driver_cpu_ns_per_timer,driver_fire_lateness_mean_ns,driver_fire_lateness_max_ns,rss_bytes_per_timer,timer_bytes,setup_overran,executor_floor_ns_per_task,allocator";

/// The columns a scale run of rounds (`--repeat K`, K from 2) adds to each row, as a wait
/// table's rounds columns: its rounds (`repeats`), each figure over them with its
/// interval's ends, the confidence and the reach.
const SCALE_ROUNDS_HEADER: &str = ",repeats,p50_over_rounds_ns,p50_low_ns,p50_high_ns,p99_over_rounds_ns,p99_low_ns,p99_high_ns,p999_over_rounds_ns,p999_low_ns,p999_high_ns,cpu_ns_per_timer_over_rounds,cpu_ns_per_timer_low,cpu_ns_per_timer_high,driver_cpu_ns_per_timer_over_rounds,driver_cpu_ns_per_timer_low,driver_cpu_ns_per_timer_high,rss_bytes_over_rounds,rss_bytes_low,rss_bytes_high,timer_bytes_over_rounds,timer_bytes_low,timer_bytes_high,confidence,reach";

/// A scale row's rounds columns (see [`SCALE_ROUNDS_HEADER`]).
fn scale_rounds(r: &ScaleResult) -> String {
    let Some(over) = r.over_rounds else {
        return ",".repeat(SCALE_ROUNDS_HEADER.matches(',').count());
    };
    let figures = [
        over.p50_ns,
        over.p99_ns,
        over.p999_ns,
        over.cpu_ns_per_timer,
        over.driver_cpu_ns_per_timer,
        over.rss_bytes,
        over.timer_bytes,
    ];
    let mut out = format!(",{}", over.rounds);
    for bounded in figures {
        let _ = match bounded {
            Some(b) => write!(out, ",{:.0},{:.0},{:.0}", b.value, b.low, b.high),
            None => write!(out, ",,,"),
        };
    }
    let first = figures.into_iter().flatten().next();
    let _ = write!(
        out,
        ",{},{}",
        maybe(first.map(|b| b.confidence)),
        maybe(first.and_then(|b| b.reach))
    );
    out
}

/// A field that may be unknown: empty when it is.
fn maybe<T: ToString>(value: Option<T>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

/// `samples,min_ns,…,early`: the lateness columns both kinds of row share.
fn lateness(l: &Lateness) -> String {
    format!(
        "{},{},{},{},{},{},{},{},{}",
        l.samples, l.min_ns, l.mean_ns, l.p50_ns, l.p90_ns, l.p99_ns, l.p999_ns, l.max_ns, l.early
    )
}

/// The scale mode's rows: one per method and N.
fn scale(report: &Report) -> anyhow::Result<Vec<u8>> {
    let with_rounds = report.scale.iter().any(|r| r.over_rounds.is_some());
    let mut out = String::from(SCALE_HEADER);
    if with_rounds {
        out.push_str(SCALE_ROUNDS_HEADER);
    }
    out.push('\n');
    for r in &report.scale {
        write!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.method,
            r.ours,
            r.timers,
            r.rounds,
            lateness(&r.lateness),
            r.stalls.longest_stall_ns,
            r.stalls.stalls,
            maybe(r.cpu_ns_per_timer),
            maybe(r.driver_cpu_ns_per_timer),
            maybe(r.driver_fire_lateness_mean_ns),
            maybe(r.driver_fire_lateness_max_ns),
            maybe(r.rss_bytes_per_timer),
            r.timer_bytes,
            r.setup_overran,
            maybe(r.executor_floor_ns_per_task),
            maybe(r.allocator.as_deref()),
        )?;
        if with_rounds {
            out.push_str(&scale_rounds(r));
        }
        out.push('\n');
    }
    Ok(out.into_bytes())
}

/// One row per method and wait (in scale mode, per method and N); nanoseconds throughout.
pub fn export(report: &Report) -> anyhow::Result<Vec<u8>> {
    if report.run.mode == RunMode::Scale {
        return scale(report);
    }
    let with_rounds = report.results.iter().any(|r| !r.rounds.is_empty());
    let mut out = String::from(HEADER);
    if with_rounds {
        out.push_str(ROUNDS_HEADER);
    }
    out.push('\n');
    for r in &report.results {
        let s = &r.summary;
        let mode = match r.mode {
            Mode::Single => "single",
            Mode::Grid => "grid",
        };
        write!(
            out,
            "{},{},{},{mode},{},{},{},{},{:.6},{},{}",
            r.method,
            r.ours,
            r.wait_ns,
            lateness(&s.lateness),
            s.early_max_ns,
            s.missed,
            s.cpu_ns_per_wait,
            r.cpu_share,
            maybe(s.self_reported_p50_ns),
            maybe(s.self_reported_p99_ns)
        )?;
        if with_rounds {
            out.push_str(&rounds(r));
        }
        out.push('\n');
    }
    Ok(out.into_bytes())
}
