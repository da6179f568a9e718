use std::fmt::Write;
use std::time::Duration;

use crate::bench::{Report, RunMode};
use crate::output;
use crate::output::table::{self, cells};
use crate::units::wait_label;

/// The scale mode's table, then its notes.
fn scale(report: &Report, out: &mut String) -> anyhow::Result<()> {
    writeln!(out, "\n### {}\n", output::scale::describe(report))?;
    out.push_str("| timers | method | samples | p50 | p90 | p99 | p99.9 | max | longest stall | early | cpu/timer | driver cpu/timer | rss/task | timer |\n");
    out.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &report.scale {
        let name = if r.ours {
            format!("**{}**", r.method)
        } else {
            r.method.clone()
        };
        let c = output::scale::cells(r);
        writeln!(
            out,
            "| {} | {name} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.timers,
            c.samples,
            c.lateness.join(" | "),
            c.stall,
            c.early,
            c.cpu,
            c.driver_cpu,
            c.rss,
            c.timer_bytes
        )?;
    }
    out.push_str("\nLateness past the deadline; **bold** methods are punctual's own.\n\n");
    for note in &report.notes {
        writeln!(out, "- {note}")?;
    }
    Ok(())
}

/// The environment as a list, then one table per wait length, ready to paste in an issue.
pub fn export(report: &Report) -> anyhow::Result<Vec<u8>> {
    let mut out = String::from("## punctual bench\n\n");
    for (label, value) in report.environment.lines() {
        writeln!(out, "- **{label}**: {value}")?;
    }
    if report.run.mode == RunMode::Scale {
        scale(report, &mut out)?;
        return Ok(out.into_bytes());
    }
    let mut waits: Vec<u64> = report.results.iter().map(|r| r.wait_ns).collect();
    waits.dedup();
    for wait in waits {
        writeln!(
            out,
            "\n### wait {}\n",
            wait_label(Duration::from_nanos(wait))
        )?;
        out.push_str("| method | samples | min | mean | p50 | p90 | p99 | p99.9 | max | early | cpu/wait | cpu |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for r in report.results.iter().filter(|r| r.wait_ns == wait) {
            let name = if r.ours {
                format!("**{}**", r.method)
            } else {
                r.method.clone()
            };
            let c = cells(r);
            writeln!(
                out,
                "| {name} | {} | {} | {} | {} | {} |",
                c.samples,
                c.lateness.join(" | "),
                c.early,
                c.cpu_per_wait,
                c.cpu_share
            )?;
        }
    }
    out.push_str("\nLateness past the deadline; **bold** methods are punctual's own.\n");
    if table::any_over_the_wait(report) {
        writeln!(
            out,
            "\n{}.",
            table::OVER_THE_WAIT.replacen(">100%", "\\>100%", 1)
        )?;
    }
    if let Some(advice) = &report.recommendation {
        writeln!(out, "\n**Recommendation**: {advice}")?;
    }
    Ok(out.into_bytes())
}
