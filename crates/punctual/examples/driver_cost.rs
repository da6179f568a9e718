//! What the async driver thread costs per timer it fires: N timers with deadlines uniform
//! over a spread, one tokio current-thread task each (as `punctual bench --scale` runs
//! them), on a private driver; prints the driver thread's CPU time and waits per timer
//! fired, and the tasks' lateness.
//!
//! ```text
//! cargo run --release -p punctual --example driver_cost -- 100000 100ms
//! valgrind --tool=callgrind --separate-threads=yes target/release/examples/driver_cost 100000 2s 10s
//! strace -c -f target/release/examples/driver_cost 100000 100ms
//! ```
//!
//! Under valgrind the threads share one CPU and run some fifty times slower, so the timers
//! fall due faster than they fire: the instruction counts per timer are those of a driver
//! that finds many due at once, the least it can do per timer.

mod support;
use support::parse_duration;

use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn main() -> Result<(), punctual::Error> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: driver_cost TIMERS SPREAD(e.g. 100ms) [LEAD(e.g. 10s)]";
    let timers: usize = args.next().and_then(|a| a.parse().ok()).expect(usage);
    let spread = args.next().and_then(|a| parse_duration(&a)).expect(usage);
    // Room to spawn and register every task before the first deadline (under valgrind,
    // some seconds).
    let lead = match args.next() {
        Some(lead) => parse_duration(&lead).expect(usage),
        None => Duration::from_millis(20) + Duration::from_micros(3) * timers as u32,
    };
    let driver = Driver::new(DriverConfig::new())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let late_ns: Arc<Vec<AtomicI64>> = Arc::new((0..timers).map(|_| AtomicI64::new(0)).collect());
    let start = Instant::now() + lead;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let spread_ns = (spread.as_nanos() as u64).max(1);
    let cpu_before = driver.cpu_time().unwrap_or_default();
    let stats_before = driver.stats();
    runtime.block_on(async {
        let mut tasks = Vec::with_capacity(timers);
        for i in 0..timers {
            let deadline = start + Duration::from_nanos(xorshift(&mut x) % spread_ns);
            let sleep = driver.sleep_until(deadline);
            let late_ns = Arc::clone(&late_ns);
            tasks.push(tokio::spawn(async move {
                let wake = sleep.await;
                late_ns[i].store(wake.lateness().as_nanos() as i64, Relaxed);
            }));
        }
        for task in tasks {
            task.await.expect("a timer task");
        }
    });
    // The driver publishes its CPU time exactly once it has no timers left.
    std::thread::sleep(Duration::from_millis(5));
    let cpu = driver
        .cpu_time()
        .unwrap_or_default()
        .saturating_sub(cpu_before);
    let stats = driver.stats();
    let fired = (stats.wakes - stats_before.wakes).max(1);
    let mut late: Vec<i64> = late_ns.iter().map(|l| l.load(Relaxed)).collect();
    late.sort_unstable();
    let at = |q: f64| late[((late.len() as f64 * q) as usize).min(late.len() - 1)];
    println!(
        "{timers} timers over {spread:?}, {fired} fired: driver cpu {} ns/timer, waits {:.3}/timer, \
         interrupts {:.3}/timer, fire lateness mean {} ns; task lateness p50 {} ns p99 {} ns max {} ns",
        cpu.as_nanos() / u128::from(fired),
        (stats.waits - stats_before.waits) as f64 / fired as f64,
        (stats.interrupts - stats_before.interrupts) as f64 / fired as f64,
        stats.fire_lateness_total.as_nanos() / u128::from(fired),
        at(0.5),
        at(0.99),
        late[late.len() - 1],
    );
    Ok(())
}
