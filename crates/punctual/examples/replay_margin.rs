//! Replays recorded oversleep series (one nanosecond value per line, as `oversleep_series`
//! prints them) through the hybrid's own `MarginEstimator` and through fixed margins, as if
//! each sleep had been a hybrid wait of WAIT: a sleep whose oversleep exceeds its margin
//! wakes late by the difference, one within it spins for the rest.
//!
//! ```text
//! cargo run --release -p punctual --example replay_margin -- 1ms docs/margin/oversleep-970us.txt
//! ```
//!
//! For each rule: spin per wait, lateness p99 and p99.9, the share of sleeps that missed
//! their margin, the margin's standard deviation, and the fixed-margin frontier's p99
//! interpolated at the same spin per wait (the line through the two fixed margins whose
//! spin brackets it).

mod support;
use support::parse_duration;

use std::time::Duration;

use punctual::margin::MarginEstimator;
use punctual::HybridConfig;

const WARM_UP: usize = 100;

struct Outcome {
    spin_us: f64,
    p99_us: f64,
    p999_us: f64,
    miss_percent: f64,
    margin_sd_us: f64,
}

fn outcome(series: &[u64], mut margin_for: impl FnMut(usize) -> u64) -> Outcome {
    let (mut spin, mut late, mut margins) = (0u64, Vec::new(), Vec::new());
    for (i, &oversleep) in series.iter().enumerate() {
        let margin = margin_for(i);
        if i < WARM_UP {
            continue;
        }
        margins.push(margin as f64);
        late.push(oversleep.saturating_sub(margin));
        spin += margin.saturating_sub(oversleep);
    }
    let n = late.len() as f64;
    late.sort_unstable();
    let at = |q: f64| late[((n * q) as usize).min(late.len() - 1)] as f64 / 1e3;
    let mean = margins.iter().sum::<f64>() / n;
    let var = margins.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / n;
    Outcome {
        spin_us: spin as f64 / n / 1e3,
        p99_us: at(0.99),
        p999_us: at(0.999),
        miss_percent: late.iter().filter(|&&l| l > 0).count() as f64 / n * 100.0,
        margin_sd_us: var.sqrt() / 1e3,
    }
}

fn adaptive(series: &[u64], wait: Duration, config: HybridConfig) -> (Outcome, u64) {
    let mut est = MarginEstimator::new(config).expect("a valid config");
    let mut last_margin = 0;
    let result = outcome(series, |i| {
        if i > 0 {
            let native = wait.saturating_sub(Duration::from_nanos(last_margin));
            est.record(native, Duration::from_nanos(series[i - 1]));
        }
        last_margin = est.plan(wait).margin().as_nanos() as u64;
        last_margin
    });
    (result, est.level_shifts())
}

fn frontier_p99_at(fixed: &[(f64, f64)], spin_us: f64) -> f64 {
    let mut points = fixed.to_vec();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    for pair in points.windows(2) {
        let ((s0, p0), (s1, p1)) = (pair[0], pair[1]);
        if (s0..=s1).contains(&spin_us) {
            return if s1 > s0 {
                p0 + (p1 - p0) * (spin_us - s0) / (s1 - s0)
            } else {
                p1
            };
        }
    }
    points.first().map_or(f64::NAN, |p| {
        if spin_us < p.0 {
            p.1
        } else {
            points[points.len() - 1].1
        }
    })
}

fn print(name: &str, o: &Outcome, extra: &str) {
    println!(
        "  {name:<30} spin/wait {:>7.1} us  p99 {:>8.2} us  p99.9 {:>8.1} us  miss {:>5.2}%  margin sd {:>6.1} us{extra}",
        o.spin_us, o.p99_us, o.p999_us, o.miss_percent, o.margin_sd_us
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: replay_margin WAIT(e.g. 1ms) SERIES.txt...";
    let wait = args.next().and_then(|a| parse_duration(&a)).expect(usage);
    let budget_us = wait.as_micros() as u64 / 4;
    for path in args {
        let text = std::fs::read_to_string(&path).expect("a readable series");
        let series: Vec<u64> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        let mut sorted = series.clone();
        sorted.sort_unstable();
        let q = |p: f64| sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)];
        println!(
            "{path}: {} sleeps, oversleep p50 {:.1} p99 {:.1} p99.9 {:.1} us; wait {wait:?}",
            series.len(),
            q(0.5) as f64 / 1e3,
            q(0.99) as f64 / 1e3,
            q(0.999) as f64 / 1e3
        );
        // Past the budget too: a margin may pass it by the floor of the oversleeps.
        let mut fixed = Vec::new();
        let step = (budget_us / 50).max(1);
        for margin_us in (step..=2 * budget_us).step_by(step as usize) {
            let o = outcome(&series, |_| margin_us * 1_000);
            fixed.push((o.spin_us, o.p99_us));
        }
        for margin_us in [
            budget_us / 10,
            budget_us / 5,
            budget_us * 3 / 10,
            budget_us * 2 / 5,
            budget_us / 2,
            budget_us * 3 / 4,
            budget_us,
            budget_us * 3 / 2,
            budget_us * 2,
        ] {
            let o = outcome(&series, |_| margin_us * 1_000);
            print(&format!("fixed {margin_us} us"), &o, "");
        }
        let rules = [
            (
                "window 100, headroom 1",
                HybridConfig::new().with_window(100).with_headroom(1.0),
            ),
            ("window 1000 (the default)", HybridConfig::new()),
            (
                "window 1000, headroom 0",
                HybridConfig::new().with_headroom(0.0),
            ),
            (
                "window 1000, tail 0.995",
                HybridConfig::new().with_tail(0.995),
            ),
            (
                "window 1000, headroom 1",
                HybridConfig::new().with_headroom(1.0),
            ),
            (
                "window 1000, headroom 2",
                HybridConfig::new().with_headroom(2.0),
            ),
            (
                "window 1000, tail 0.992",
                HybridConfig::new().with_tail(0.992),
            ),
            ("window 2000", HybridConfig::new().with_window(2000)),
            (
                "window 300 (no shift check)",
                HybridConfig::new().with_window(300),
            ),
        ];
        for (name, config) in rules {
            let (o, shifts) = adaptive(&series, wait, config);
            let frontier = frontier_p99_at(&fixed, o.spin_us);
            print(
                name,
                &o,
                &format!("  frontier p99 {frontier:.2} us  level shifts {shifts}"),
            );
        }
    }
}
