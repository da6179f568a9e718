//! What surrounds the results: the environment and the settings before, the machine's other
//! load after. On stdout normally; on stderr with `--quiet` or `--json -`, so the results
//! parse as cyclictest's do.

use std::fmt::Write;

use super::options::{GridOptions, Stop};
use super::GridReport;
use crate::environment::Environment;
use crate::output::table;
use crate::units::{format_duration, wait_label};

fn label(out: &mut String, label: &str, value: &str) {
    let _ = writeln!(out, "  {label:<16} {value}");
}

/// `scheduling` is what the measuring threads got (one entry per distinct outcome).
pub fn render(options: &GridOptions, environment: &Environment, scheduling: &[String]) -> String {
    let mut out =
        String::from("punctual grid: wake-ups on a fixed grid, reported as cyclictest does\n");
    out.push_str(&table::header(environment));
    let threads = options.threads();
    let length = match options.stop {
        Stop::Loops(n) => format!("{n} loops"),
        Stop::Duration(d) => format!("for {}", wait_label(d)),
    };
    label(
        &mut out,
        "run",
        &format!(
            "{} strategy, interval {}, {length}, {threads} thread{}",
            options.strategy,
            wait_label(options.interval),
            if threads == 1 { "" } else { "s" }
        ),
    );
    let policy = if scheduling.is_empty() {
        "default (no --priority)".to_string()
    } else {
        scheduling.join(", ")
    };
    label(&mut out, "measuring", &policy);
    let pinned: Vec<String> = options
        .cpus
        .iter()
        .flatten()
        .map(usize::to_string)
        .collect();
    label(
        &mut out,
        "affinity",
        &if pinned.is_empty() {
            "not pinned (no --affinity)".to_string()
        } else {
            format!("threads pinned to CPU {} in turn", pinned.join(", "))
        },
    );
    label(
        &mut out,
        "memory",
        if options.mlock {
            "locked (mlockall)"
        } else {
            "not locked (no --mlock)"
        },
    );
    label(
        &mut out,
        "idle states",
        &options.dma_latency_us.map_or(
            "as the system has them (no --dma-latency)".to_string(),
            |us| format!("/dev/cpu_dma_latency held at {us} us"),
        ),
    );
    out.push('\n');
    out
}

/// After the results: the other load, and whether Ctrl-C cut the run short.
pub fn footer(report: &GridReport) -> String {
    let mut out = String::new();
    label(
        &mut out,
        "other load",
        &report
            .other_load
            .map_or("unknown on this OS".to_string(), |share| {
                format!(
                    "{:.0}% of the machine's CPU time went to other processes",
                    share * 100.0
                )
            }),
    );
    label(&mut out, "took", &format_duration(report.wall));
    if report.interrupted {
        label(&mut out, "stopped", "early, by Ctrl-C");
    }
    out
}
