//! The probe's findings as a person reads them: the ruler, each request's cost back to back
//! and scrambled, then the verdict and the cheat sheet.

use std::fmt::Write;
use std::time::Duration;

use super::Findings;
use crate::units::{format_nanos, wait_label};

fn request_label(ns: u64) -> String {
    if ns == 0 {
        "sleep(0)".to_string()
    } else {
        format!("sleep({})", wait_label(Duration::from_nanos(ns)))
    }
}

fn loop_cost(ns: u64) -> String {
    format_nanos(ns as f64)
}

pub fn render(f: &Findings) -> String {
    let mut out = format!(
        "punctual probe: what {} really costs on {}\n\n",
        f.sleep, f.os
    );
    out.push_str("ruler (check it before trusting anything below)\n");
    let _ = writeln!(
        out,
        "  fine clock (Instant): smallest step {}, {} per read",
        format_nanos(f.ruler.fine_step_ns as f64),
        format_nanos(f.ruler.fine_read_ns as f64)
    );
    match &f.ruler.coarse {
        Some(c) => {
            let _ = writeln!(
                out,
                "  coarse clock ({}): moves in steps of {}; timing with it can only ever see whole steps",
                c.name,
                format_nanos(c.step_ns as f64)
            );
        }
        None => out.push_str("  coarse clock: none on this OS\n"),
    }
    let quantised = f.quantum_ns.is_some();
    let _ = writeln!(
        out,
        "\n{:<13} {:>14} {:>14} {:>10}   {:<34}{}",
        "request",
        "per call",
        "x1000 loop",
        "overshoot",
        "scrambled phase: mean [min, max]",
        if quantised { "   model n + q/2" } else { "" }
    );
    for r in &f.requests {
        let overshoot = match r.overshoot_ratio {
            Some(ratio) => format!("{ratio:.2}x"),
            None => "-".to_string(),
        };
        let scrambled = format!(
            "{} [{}, {}]",
            format_nanos(r.scrambled.mean_ns as f64),
            format_nanos(r.scrambled.min_ns as f64),
            format_nanos(r.scrambled.max_ns as f64)
        );
        let _ = write!(
            out,
            "{:<13} {:>14} {:>14} {:>10}   {:<34}",
            request_label(r.request_ns),
            format_nanos(r.back_to_back.mean_ns as f64),
            loop_cost(r.loop_1000_ns),
            overshoot,
            scrambled
        );
        if let (Some(q), true) = (f.quantum_ns, r.request_ns > 0) {
            let _ = write!(
                out,
                "   {}",
                format_nanos(r.request_ns as f64 + q as f64 / 2.0)
            );
        }
        out.push('\n');
    }
    let zero = f.requests.iter().find(|r| r.request_ns == 0);
    if let Some(zero) = zero {
        let _ = writeln!(
            out,
            "\nsleep(0) costs {}: it returns at once (or yields); it is not a short pause.",
            format_nanos(zero.back_to_back.mean_ns as f64)
        );
    }
    let _ = writeln!(
        out,
        "floor: the least any non-zero sleep cost was {}.",
        format_nanos(f.floor_ns as f64)
    );
    match f.quantum_ns {
        Some(q) => {
            let _ = writeln!(
                out,
                "quantised: sleeps cost whole quanta of {}; sleep(1ms) costs the same as anything up to one quantum.\n\
                 With a scrambled phase a sleep(n) lands anywhere in [n, n + q], n + q/2 on average.\n\
                 \ncheat sheet: mid-band requests, n_k = round(q*k - q/2) ms, away from the tick edges",
                format_nanos(q as f64),
            );
            let _ = writeln!(
                out,
                "  {:>3} {:>12} {:>12} {:>10}",
                "k", "request", "costs", "rate"
            );
            for row in &f.cheat_sheet {
                let _ = writeln!(
                    out,
                    "  {:>3} {:>14} {:>12} {:>8.1} Hz",
                    row.k,
                    format!("sleep({}ms)", row.request_ms),
                    format_nanos(row.actual_ns as f64),
                    row.rate_hz
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "not quantised: sleep(n) costs n plus about {} (median over requests of 1 ms or more);\n\
                 there is no tick to land mid-band of, so ask for what you need. For waits tighter\n\
                 than that, `punctual bench` shows what the other methods buy, and at what CPU cost.",
                format_nanos(f.overshoot_ns.unwrap_or(0) as f64)
            );
        }
    }
    out.push_str("\nNever count iterations as time: a loop of 1000 x sleep(n) costs the x1000 column, not 1000 x n.\n");
    out
}
