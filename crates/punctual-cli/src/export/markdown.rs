use std::fmt::Write;
use std::time::Duration;

use super::Exporter;
use crate::bench::Report;
use crate::units::{format_nanos, wait_label};

/// The environment as a list, then one table per wait length, ready to paste in an issue.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn serialize(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        let mut out = String::from("## punctual bench\n\n");
        for (label, value) in report.environment.lines() {
            writeln!(out, "- **{label}**: {value}")?;
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
                let s = &r.summary;
                let name = if r.ours {
                    format!("**{}**", r.method)
                } else {
                    r.method.clone()
                };
                writeln!(
                    out,
                    "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1}% |",
                    s.samples,
                    format_nanos(s.min_ns as f64),
                    format_nanos(s.mean_ns as f64),
                    format_nanos(s.p50_ns as f64),
                    format_nanos(s.p90_ns as f64),
                    format_nanos(s.p99_ns as f64),
                    format_nanos(s.p999_ns as f64),
                    format_nanos(s.max_ns as f64),
                    s.early,
                    format_nanos(s.cpu_ns_per_wait as f64),
                    r.cpu_share * 100.0
                )?;
            }
        }
        out.push_str("\nLateness past the deadline; **bold** methods are punctual's own.\n");
        if let Some(advice) = &report.recommendation {
            writeln!(out, "\n**Recommendation**: {advice}")?;
        }
        Ok(out.into_bytes())
    }
}
