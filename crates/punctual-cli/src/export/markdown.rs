use std::fmt::Write;
use std::time::Duration;

use crate::bench::{MethodResult, Report, RunMode};
use crate::output;
use crate::output::rounds_table;
use crate::output::table::{self, cells};
use crate::units::wait_label;

/// Text with the `*` of an interval short of its confidence, which Markdown would read as
/// emphasis, escaped.
fn escape_marks(text: &str) -> String {
    text.replace('*', "\\*")
}

/// The scale mode's table, then its notes.
fn scale(report: &Report, out: &mut String) -> anyhow::Result<()> {
    writeln!(out, "\n### {}\n", output::scale::describe(report))?;
    let with_rounds = report.scale.iter().any(|r| r.over_rounds.is_some());
    if with_rounds {
        // The terminal's two blocks side by side: a Markdown table has no width to keep to.
        let labels: Vec<&str> = output::scale::ROUNDS_LATENESS
            .iter()
            .chain(&output::scale::ROUNDS_COST)
            .copied()
            .collect();
        writeln!(
            out,
            "| timers | method | samples | {} |",
            labels.join(" | ")
        )?;
        writeln!(out, "|---:|---|---:|{}", "---:|".repeat(labels.len()))?;
    } else {
        out.push_str("| timers | method | samples | p50 | p90 | p99 | p99.9 | max | longest stall | early | cpu/timer | driver cpu/timer | rss/task | timer |\n");
        out.push_str("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for r in &report.scale {
        let name = if r.ours {
            format!("**{}**", r.method)
        } else {
            r.method.clone()
        };
        let c = output::scale::cells(r);
        if with_rounds {
            let (lateness, cost) = output::scale::rounds_cells(r);
            writeln!(
                out,
                "| {} | {name} | {} | {} | {} |",
                r.timers,
                c.samples,
                escape_marks(&lateness.join(" | ")),
                escape_marks(&cost.join(" | "))
            )?;
            continue;
        }
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
    for line in output::scale_rounds::legend_lines(
        report.scale.iter().filter_map(|r| r.over_rounds.as_ref()),
    ) {
        writeln!(out, "{}\n", line.replacen("* ", "\\* ", 1))?;
    }
    for note in &report.notes {
        writeln!(out, "- {}", escape_marks(note))?;
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
        let rows: Vec<_> = report
            .results
            .iter()
            .filter(|r| r.wait_ns == wait)
            .collect();
        let name = |r: &MethodResult| {
            if r.ours {
                format!("**{}**", r.method)
            } else {
                r.method.clone()
            }
        };
        if rows.iter().any(|r| r.over_rounds.is_some()) {
            // As the terminal's rounds block: the figures over the rounds with their intervals.
            let labels = rounds_table::FIGURE_LABELS.join(" | ");
            writeln!(out, "| method | samples | {labels} | early |")?;
            out.push_str("|---|---:|---:|---:|---:|---:|\n");
            for r in &rows {
                writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    name(r),
                    r.summary.lateness.samples,
                    escape_marks(&rounds_table::cells(r).join(" | ")),
                    r.summary.lateness.early
                )?;
            }
            continue;
        }
        out.push_str("| method | samples | min | mean | p50 | p90 | p99 | p99.9 | max | early | cpu/wait | cpu |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for r in rows {
            let name = name(r);
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
    if let Some(confidence) = report
        .results
        .iter()
        .find_map(|r| r.over_rounds?.p99_ns.map(|b| b.confidence))
    {
        writeln!(out, "\n{}", rounds_table::legend(confidence))?;
    }
    if let Some((rounds, interval)) = rounds_table::short_interval(&report.results) {
        if let Some(note) = crate::intervals::format::reach_note(rounds, &interval) {
            writeln!(out, "\n{}.", note.replacen("* ", "\\* ", 1))?;
        }
    }
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
