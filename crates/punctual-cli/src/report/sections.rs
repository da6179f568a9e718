//! The parts of a page both the one-export page and the comparison show: warnings, the
//! run's settings, the tables, the command.

use std::time::Duration;

use super::html::{Cell, Table};
use super::model::{Export, Row, Run};
use crate::bench::frontier::sweep_verdict;
use crate::output::table::cpu_share_label;
use crate::units::{format_duration, format_nanos, wait_label};

/// What a reader should know before trusting the figures: the run's own notes, and what the
/// environment says degrades timing.
pub fn warnings(export: &Export) -> Vec<String> {
    let env = &export.environment;
    let mut warnings = Vec::new();
    if !env.high_resolution_timer {
        warnings.push(format!(
            "the native timer ({}) is not high resolution: sleeps wake on the OS's tick",
            env.native_timer
        ));
    }
    if let Some(degraded) = &env.timer_degraded {
        warnings.push(format!("the native timer is degraded: {degraded}"));
    }
    if let Some(vm) = env
        .virtualization
        .as_deref()
        .filter(|v| !matches!(*v, "no" | "none"))
    {
        warnings.push(format!(
            "the machine is virtualized ({vm}): a neighbour on the host can make any wait late"
        ));
    }
    warnings.extend(export.notes.iter().cloned());
    warnings
}

pub fn wait_name(wait_ns: u64) -> String {
    wait_label(Duration::from_nanos(wait_ns))
}

/// The load and mode the run was made with, as `(label, value)`.
pub fn settings(run: &Run) -> Vec<(&'static str, String)> {
    let mut lines = vec![("mode", run.mode.clone())];
    if let Some(phase) = &run.phase {
        lines.push(("phase", phase.clone()));
    }
    if let Some(threads) = run.threads {
        lines.push(("threads", format!("{threads} per method, sleeping at once")));
    }
    if let (Some(min), Some(max)) = (run.wait_min_ns, run.wait_max_ns) {
        lines.push((
            "waits",
            format!(
                "drawn uniformly from {} to {}",
                wait_name(min),
                wait_name(max)
            ),
        ));
    }
    lines.push((
        "load",
        match run.load_threads {
            0 => "none".to_string(),
            n => format!("{n} busy threads at {} priority", run.load),
        },
    ));
    if !run.timers.is_empty() {
        let listed: Vec<String> = run.timers.iter().map(u64::to_string).collect();
        lines.push((
            "timers",
            format!("{} pending at once, one task each", listed.join(", ")),
        ));
    }
    let per = if run.timers.is_empty() { "wait" } else { "N" };
    if let Some(n) = run.samples_per_method {
        lines.push(("size", format!("{n} samples per method and {per}")));
    }
    if let Some(n) = run.min_rounds {
        lines.push(("rounds", format!("at least {n} per method and N")));
    }
    if let Some(ns) = run.duration_per_method_ns {
        lines.push((
            "size",
            format!(
                "{} of waiting per method{}",
                format_duration(Duration::from_nanos(ns)),
                if run.threads.is_some() {
                    ""
                } else {
                    " and wait"
                }
            ),
        ));
    }
    for size in &run.waits {
        lines.push((
            "size",
            format!(
                "{} samples per contender at {}",
                size.samples_per_contender,
                wait_name(size.wait_ns)
            ),
        ));
    }
    if let Some(warmup) = run.warmup {
        lines.push(("warm-up", format!("{warmup} unrecorded waits first")));
    }
    if run.interrupted {
        lines.push(("stopped", "early, by Ctrl-C".to_string()));
    }
    lines
}

pub fn facts(lines: &[(&str, String)]) -> Table {
    let mut table = Table::new("facts", &[]);
    for (label, value) in lines {
        table.row(None, vec![Cell::from(*label), Cell::from(value.clone())]);
    }
    table
}

fn nanos(row: &Row, ns: f64) -> Cell {
    if row.lateness.samples == 0 {
        Cell::from("-")
    } else {
        Cell::from(format_nanos(ns))
    }
}

pub fn name(row: &Row) -> String {
    if row.ours {
        format!("{} *", row.method)
    } else {
        row.method.clone()
    }
}

/// What a part's CPU figure is per, told by its rows: a threads run's rows carry the
/// process's cores, a scale run's their N timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CpuPer {
    Wait,
    Sleep,
    Timer,
}

impl CpuPer {
    fn of(rows: &[&Row]) -> CpuPer {
        if rows.iter().any(|r| r.cores.is_some()) {
            CpuPer::Sleep
        } else if rows.iter().any(|r| r.timers.is_some()) {
            CpuPer::Timer
        } else {
            CpuPer::Wait
        }
    }

    /// The CPU column's heading.
    fn label(self) -> &'static str {
        match self {
            CpuPer::Wait => "cpu/wait",
            CpuPer::Sleep => "cpu/sleep",
            CpuPer::Timer => "cpu/timer",
        }
    }
}

/// One wait's table: a row per method (or contender).
pub fn results(rows: &[&Row], grid: bool) -> Table {
    let mut head = vec![
        "method", "samples", "min", "mean", "p50", "p90", "p99", "p99.9", "max", "early",
    ];
    if grid {
        head.push("missed");
    }
    let per = CpuPer::of(rows);
    head.push(per.label());
    match per {
        CpuPer::Sleep => {
            head[1] = "sleeps";
            head.extend(["own cores", "cores"]);
        }
        CpuPer::Timer => head.extend(["driver cpu/timer", "longest stall"]),
        CpuPer::Wait => head.push("cpu"),
    }
    let mut table = Table::new("results", &head);
    for row in rows {
        let mut cells = vec![
            Cell::from(name(row)),
            Cell::from(row.lateness.samples.to_string()),
            nanos(row, row.lateness.min_ns as f64),
            nanos(row, row.lateness.mean_ns as f64),
            nanos(row, row.lateness.p50_ns as f64),
            nanos(row, row.lateness.p90_ns as f64),
            nanos(row, row.lateness.p99_ns as f64),
            nanos(row, row.lateness.p999_ns as f64),
            nanos(row, row.lateness.max_ns as f64),
            Cell::from(row.lateness.early.to_string()),
        ];
        if grid {
            cells.push(Cell::from(row.missed.to_string()));
        }
        cells.push(nanos(row, row.cpu_ns_per_wait as f64));
        let maybe = |ns: Option<u64>| ns.map_or(Cell::from("-"), |ns| nanos(row, ns as f64));
        match (per, row.cores) {
            (CpuPer::Timer, _) => {
                cells.push(maybe(row.driver_cpu_ns_per_timer));
                cells.push(maybe(row.longest_stall_ns));
            }
            (CpuPer::Sleep, Some(cores)) => {
                cells.push(Cell::from(format!("{:.2}", row.cpu_share)));
                cells.push(Cell::from(format!("{cores:.2}")));
            }
            (CpuPer::Sleep, None) => cells.extend([Cell::from("-"), Cell::from("-")]),
            (CpuPer::Wait, _) => cells.push(Cell::from(cpu_share_label(row.cpu_share))),
        }
        table.row(row.ours.then_some("ours"), cells);
    }
    table
}

/// The plotted points, for a reader who would rather read than squint: a row per
/// percentile, a column per method.
pub fn plotted(rows: &[&Row]) -> Option<Table> {
    let drawn: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| !r.lateness_percentiles.is_empty())
        .collect();
    let first = drawn.first()?;
    let mut head = vec!["percentile".to_string()];
    head.extend(drawn.iter().map(|r| name(r)));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut table = Table::new("plotted", &head);
    for (i, p) in first.lateness_percentiles.iter().enumerate() {
        let mut cells = vec![Cell::from(format!("{}", p.percentile))];
        for row in &drawn {
            cells.push(Cell::from(
                row.lateness_percentiles
                    .get(i)
                    .map_or("-".to_string(), |q| format_nanos(q.lateness_ns as f64)),
            ));
        }
        table.row(None, cells);
    }
    Some(table)
}

/// What the CPU/tail plot shows of each measured row, as its hover text gives it.
pub fn tail_figures(rows: &[&Row]) -> Table {
    let cpu = CpuPer::of(rows).label();
    let mut table = Table::new("plotted", &["method", cpu, "p50", "p99", "p99.9"]);
    for row in rows.iter().filter(|r| r.lateness.samples > 0) {
        table.row(
            row.ours.then_some("ours"),
            vec![
                Cell::from(name(row)),
                Cell::from(format_nanos(row.cpu_ns_per_wait as f64)),
                Cell::from(format_nanos(row.lateness.p50_ns as f64)),
                Cell::from(format_nanos(row.lateness.p99_ns as f64)),
                Cell::from(format_nanos(row.lateness.p999_ns as f64)),
            ],
        );
    }
    table
}

/// The command line, quoted as a shell would take it.
pub fn command(export: &Export) -> String {
    match &export.command {
        Some(words) => words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "),
        None => "(not recorded: the export was made before punctual kept it)".to_string(),
    }
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,=:@+%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A threads or scale run's one sentence: which method woke closest at p99 (in a scale run,
/// with the most timers pending), for what CPU.
pub fn closest(export: &Export) -> String {
    let most_timers = export.rows().iter().filter_map(|r| r.timers).max();
    let (when, per, kind) = match most_timers {
        Some(n) => (
            format!("With {n} timers pending at once"),
            "timer",
            "--scale",
        ),
        None => {
            let threads = export
                .run
                .threads
                .map_or("many".to_string(), |n| n.to_string());
            (
                format!("With {threads} threads sleeping at once"),
                "sleep",
                "--threads",
            )
        }
    };
    match export
        .rows()
        .iter()
        .filter(|r| r.lateness.samples > 0 && r.timers == most_timers)
        .min_by_key(|r| (r.lateness.p99_ns, r.cpu_ns_per_wait))
    {
        Some(best) => format!(
            "{when}, {} woke closest: {} late at p99 for {} CPU per {per} (a {kind} run compares; it makes no recommendation).",
            name(best),
            format_nanos(best.lateness.p99_ns as f64),
            format_nanos(best.cpu_ns_per_wait as f64)
        ),
        None => "Nothing was measured, so there is nothing to compare.".to_string(),
    }
}

/// A frontier run's placements as sentences: with rounds, against the fixed margins' fit,
/// as the table places them (the lower envelope of the pooled waits would be a second
/// verdict on other figures); for one round, against the envelope.
pub fn placements(export: &Export) -> Vec<String> {
    export
        .placements
        .iter()
        .map(|p| {
            let order = p.sweep_order.map_or(String::new(), |order| {
                format!(
                    " Fixed margins' p99 against margin: rank correlation {order:+.2}; {}.",
                    sweep_verdict(order)
                )
            });
            if let Some(fit) = &p.fit {
                return format!("{}.{order}", fit.text);
            }
            let against = match (p.frontier_p99_ns, p.p99_to_frontier) {
                (Some(f), Some(ratio)) => format!(
                    "{ratio:.2}x the frontier's p99 of {} at that CPU ({})",
                    format_nanos(f as f64),
                    p.frontier_basis
                ),
                _ => format!("not placed against the frontier ({})", p.frontier_basis),
            };
            format!(
                "At {}, {} woke with a p99 of {} for {} CPU per wait: {against}.{order}",
                wait_name(p.wait_ns),
                p.method,
                format_nanos(p.p99_ns as f64),
                format_nanos(p.cpu_ns_per_wait as f64)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn a_command_is_quoted_as_a_shell_takes_it() {
        assert_eq!(quote("--wait"), "--wait");
        assert_eq!(quote("100us,1ms"), "100us,1ms");
        assert_eq!(quote("my report.html"), "'my report.html'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("$HOME"), "'$HOME'");
    }
}
