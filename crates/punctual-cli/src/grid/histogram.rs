//! `--histogram MAX_US`: cyclictest's histogram (its `print_hist`, without `-H`'s summary
//! column): a row per microsecond with a tab-separated column per thread, then `#` lines.
//! punctual's percentiles and missed periods follow as more `#` lines, which readers of this
//! format skip as comments.

use std::fmt::Write;

use super::GridReport;

/// `# Label: 00012 00017`: one zero-padded value per thread.
fn footer(out: &mut String, label: &str, width: usize, values: impl Iterator<Item = u64>) {
    out.push_str(label);
    for value in values {
        let _ = write!(out, " {value:0width$}");
    }
    out.push('\n');
}

pub fn render(report: &GridReport) -> String {
    let threads = &report.threads;
    let histograms: Vec<_> = threads
        .iter()
        .map(|t| {
            t.stats
                .histogram
                .as_ref()
                .expect("every thread keeps a histogram when one is asked for")
        })
        .collect();
    let size = histograms.first().map_or(0, |h| h.bins.len());
    let mut out = String::from("# Histogram\n");
    for us in 0..size {
        let row: Vec<String> = histograms
            .iter()
            .map(|h| format!("{:06}", h.bins[us]))
            .collect();
        let _ = writeln!(out, "{us:06} {}", row.join("\t"));
    }
    let stats = || threads.iter().map(|t| &t.stats);
    footer(
        &mut out,
        "# Total:",
        9,
        histograms.iter().map(|h| h.bins.iter().sum()),
    );
    footer(&mut out, "# Min Latencies:", 5, stats().map(|s| s.min_us));
    // cyclictest casts its double average to long: truncation.
    footer(
        &mut out,
        "# Avg Latencies:",
        5,
        stats().map(|s| s.avg_us() as u64),
    );
    footer(&mut out, "# Max Latencies:", 5, stats().map(|s| s.max_us));
    footer(
        &mut out,
        "# Histogram Overflows:",
        5,
        histograms.iter().map(|h| h.overflows),
    );
    out.push_str("# Histogram Overflow at cycle number:\n");
    for (i, h) in histograms.iter().enumerate() {
        let _ = write!(out, "# Thread {i}:");
        for cycle in &h.overflow_cycles {
            let _ = write!(out, " {cycle:05}");
        }
        let unlisted = h.overflows - h.overflow_cycles.len() as u64;
        if unlisted > 0 {
            let _ = write!(out, " # {unlisted:05} others");
        }
        out.push('\n');
    }
    let percentiles: Vec<_> = stats().map(|s| s.percentiles()).collect();
    let q = || percentiles.iter();
    footer(&mut out, "# P50 Latencies (ns):", 9, q().map(|q| q.p50_ns));
    footer(&mut out, "# P99 Latencies (ns):", 9, q().map(|q| q.p99_ns));
    footer(
        &mut out,
        "# P99.9 Latencies (ns):",
        9,
        q().map(|q| q.p999_ns),
    );
    footer(&mut out, "# Missed Periods:", 5, stats().map(|s| s.missed));
    out.push('\n');
    out
}
