//! Many threads sleeping at once on few cores: THREADS threads each sleep a random 100 us to
//! 2 ms, over and over, for SECONDS, once per strategy (native, the hybrid without its
//! back-off, the hybrid). Prints completed sleeps, cores used (process CPU time over wall
//! time, on Linux), the caller-side lateness and the hybrid's counters.
//!
//! ```text
//! cargo run --release -p punctual --example oversubscribed -- 64 10
//! ```

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use punctual::{HybridConfig, SleepStats, Sleeper};

/// The process's CPU time from `/proc/self/stat` (user and system time, fields 14 and 15,
/// in the 100 Hz clock ticks of `USER_HZ` on Linux), or `None` where there is no such file.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, field 2, is in parentheses and may hold spaces.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((user + system) * 10))
}

/// xorshift64: a different, reproducible series of waits on every thread.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[derive(Default)]
struct Totals {
    lateness_nanos: Vec<u64>,
    stats: Vec<SleepStats>,
}

fn run(name: &str, threads: usize, length: Duration, make: fn() -> Sleeper) {
    let totals = Arc::new(Mutex::new(Totals::default()));
    let cpu = process_cpu();
    let start = Instant::now();
    let end = start + length;
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let totals = Arc::clone(&totals);
            std::thread::spawn(move || {
                let mut sleeper = make();
                let mut state = 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1);
                let mut late = Vec::new();
                while Instant::now() < end {
                    let wait = Duration::from_micros(100 + next(&mut state) % 1_901);
                    let deadline = Instant::now() + wait;
                    sleeper.sleep_until(deadline);
                    late.push((Instant::now() - deadline).as_nanos() as u64);
                }
                let mut totals = totals.lock().unwrap();
                totals.lateness_nanos.extend(late);
                totals.stats.push(sleeper.stats());
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let wall = start.elapsed();
    let cores = match (cpu, process_cpu()) {
        (Some(before), Some(after)) => {
            format!("{:.2}", (after - before).as_secs_f64() / wall.as_secs_f64())
        }
        _ => "n/a".to_string(),
    };
    let totals = totals.lock().unwrap();
    let mut late = totals.lateness_nanos.clone();
    late.sort_unstable();
    let at = |q: f64| late[((late.len() as f64 * q) as usize).min(late.len() - 1)] as f64 / 1e3;
    let sum = |f: fn(&SleepStats) -> u64| totals.stats.iter().map(f).sum::<u64>();
    println!(
        "{name:<18} {:>8} sleeps  {cores} cores  late p50 {:>9.1} us  p99 {:>9.1} us  capped {}  lost the CPU {}  backed off {}",
        late.len(),
        at(0.5),
        at(0.99),
        sum(|s| s.capped),
        sum(|s| s.lost_cpu),
        sum(|s| s.backed_off),
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: oversubscribed THREADS SECONDS";
    let threads: usize = args.next().and_then(|a| a.parse().ok()).expect(usage);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).expect(usage);
    let length = Duration::from_secs(seconds);
    println!("{threads} threads, 100 us to 2 ms at random, {seconds} s each");
    run("native", threads, length, Sleeper::native);
    run("hybrid, no back-off", threads, length, || {
        Sleeper::hybrid_with(HybridConfig::new().with_back_off(false)).expect("a valid config")
    });
    run("hybrid", threads, length, Sleeper::hybrid);
}
