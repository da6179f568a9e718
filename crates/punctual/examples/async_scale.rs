//! Scale demo: N concurrent timers with random deadlines 1 to 100 ms ahead, on punctual's
//! driver and on `tokio::time`, each in a tokio current-thread runtime of its own process.
//!
//! ```text
//! cargo run --release -p punctual --example async_scale -- [N ...]   # default: 1 1000 100000
//! ```
//!
//! Per run it prints the lateness percentiles (poll-time clock reading minus deadline), the
//! process CPU time over the run, the punctual driver thread's CPU time, and memory per
//! pending timer: RSS growth while all N tasks are pending, divided by N (task included; from
//! `/proc/self/statm`, 4 KiB pages), and for punctual the `Sleep` plus the driver's storage.
//! Runs with N < 100 repeat until 100 timers have fired. CPU and RSS need Linux's `/proc`;
//! elsewhere they print as `-`.
//!
//! `drv late us` is the punctual driver's own lateness, mean/max: its clock reading when it
//! took a timer off the heap, minus the deadline. The task's lateness adds the executor's
//! delay in running the woken task.
//!
//! The last two columns time the timer structure alone, with no task and no wake: the first
//! poll of N sleeps with random deadlines an hour ahead (registration: a heap insert for
//! punctual, a wheel insert for tokio) and dropping them (cancellation), per timer. tokio's
//! `Sleep` is `!Unpin`, so its sleeps are boxed; the box is allocated before the timed
//! polls but freed inside the timed drop.
//!
//! A demo, not the benchmark: one run, on whatever else the machine is doing.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Punctual,
    Tokio,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Punctual => "punctual",
            Kind::Tokio => "tokio::time",
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let kind = if args[1] == "tokio" {
            Kind::Tokio
        } else {
            Kind::Punctual
        };
        let n: usize = args[2].parse().expect("N");
        child(kind, n);
        return;
    }
    let counts: Vec<usize> = if args.is_empty() {
        vec![1, 1_000, 100_000]
    } else {
        args.iter()
            .map(|a| a.parse().expect("N, a count of timers"))
            .collect()
    };
    println!("driver wait: {}", Driver::global().timer_info());
    println!(
        "{:>9} {:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>13} {:>10} {:>10} {:>11} {:>8} {:>7} {:>9}",
        "N",
        "timer",
        "p50 us",
        "p90 us",
        "p99 us",
        "p99.9 us",
        "max us",
        "drv late us",
        "proc CPU",
        "drv CPU",
        "RSS B/task",
        "timer B",
        "reg ns",
        "cancel ns"
    );
    let exe = std::env::current_exe().expect("this example's path");
    for &n in &counts {
        for kind in ["punctual", "tokio"] {
            let out = std::process::Command::new(&exe)
                .args(["--child", kind, &n.to_string()])
                .output()
                .expect("run a child");
            print!("{}", String::from_utf8_lossy(&out.stdout));
            eprint!("{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

/// One kind at one N, in a fresh process so that memory and CPU are its own.
fn child(kind: Kind, n: usize) {
    let rounds = 100usize.div_ceil(n).max(1);
    let mut late_ns = Vec::with_capacity(n * rounds);
    let mut rss_per_task = None;
    let mut driver_bytes = None;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut rng = 0x2545_F491_4F6C_DD1D_u64;
    let driver = Driver::global();
    let cpu_before = process_cpu();
    let driver_cpu_before = driver.cpu_time();
    for _ in 0..rounds {
        let round = rt.block_on(round(kind, n, &mut rng));
        late_ns.extend(round.late_ns);
        rss_per_task = round.rss_per_task;
        driver_bytes = round.driver_bytes;
    }
    let cpu = process_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    let driver_cpu = match kind {
        Kind::Punctual => driver
            .cpu_time()
            .zip(driver_cpu_before)
            .map(|(after, before)| after.saturating_sub(before)),
        Kind::Tokio => None,
    };
    // A tokio `Sleep` holds its wheel entry inline; a punctual one has driver storage too.
    let timer_bytes = match (kind, driver_bytes) {
        (Kind::Punctual, Some(bytes)) => {
            format!("{}+{bytes}", std::mem::size_of::<punctual::future::Sleep>())
        }
        (Kind::Punctual, None) => "-".to_string(),
        (Kind::Tokio, _) => format!("{}", std::mem::size_of::<tokio::time::Sleep>()),
    };
    late_ns.sort_unstable();
    let q = |p: f64| {
        let i = ((p * late_ns.len() as f64).ceil() as usize).clamp(1, late_ns.len()) - 1;
        format!("{:.1}", late_ns[i] as f64 / 1e3)
    };
    let ms = |d: Option<Duration>| {
        d.map_or("-".to_string(), |d| {
            format!("{:.1} ms", d.as_secs_f64() * 1e3)
        })
    };
    let stats = driver.stats();
    let driver_late = match kind {
        Kind::Punctual if stats.wakes > 0 => format!(
            "{:.1}/{:.1}",
            stats.fire_lateness_total.as_secs_f64() * 1e6 / stats.wakes as f64,
            stats.fire_lateness_max.as_secs_f64() * 1e6
        ),
        _ => "-".to_string(),
    };
    let (register_ns, cancel_ns) = structure_costs(kind, n, &rt, &mut rng);
    println!(
        "{:>9} {:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>13} {:>10} {:>10} {:>11} {:>8} {:>7.0} {:>9.0}",
        n,
        kind.name(),
        q(0.5),
        q(0.9),
        q(0.99),
        q(0.999),
        q(1.0),
        driver_late,
        ms(cpu),
        ms(driver_cpu),
        rss_per_task.map_or("-".to_string(), |b| b.to_string()),
        timer_bytes,
        register_ns,
        cancel_ns,
    );
}

struct Noop;

impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Nanoseconds per timer to register N sleeps (first poll) and to cancel them (drop).
fn structure_costs(
    kind: Kind,
    n: usize,
    rt: &tokio::runtime::Runtime,
    rng: &mut u64,
) -> (f64, f64) {
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let base = Instant::now() + Duration::from_secs(3600);
    let mut deadline = || base + Duration::from_nanos(splitmix(rng) % 100_000_000);
    let per_timer = |d: Duration| d.as_nanos() as f64 / n as f64;
    match kind {
        Kind::Punctual => {
            let driver = Driver::new(DriverConfig::new()).expect("a driver");
            let mut sleeps: Vec<_> = (0..n).map(|_| driver.sleep_until(deadline())).collect();
            let start = Instant::now();
            for sleep in &mut sleeps {
                assert!(Pin::new(sleep).poll(&mut cx).is_pending());
            }
            let register = start.elapsed();
            let start = Instant::now();
            drop(sleeps);
            (per_timer(register), per_timer(start.elapsed()))
        }
        Kind::Tokio => {
            let _runtime = rt.enter();
            let mut sleeps: Vec<_> = (0..n)
                .map(|_| Box::pin(tokio::time::sleep_until(deadline().into())))
                .collect();
            let start = Instant::now();
            for sleep in &mut sleeps {
                assert!(sleep.as_mut().poll(&mut cx).is_pending());
            }
            let register = start.elapsed();
            let start = Instant::now();
            drop(sleeps);
            (per_timer(register), per_timer(start.elapsed()))
        }
    }
}

struct Round {
    late_ns: Vec<u64>,
    rss_per_task: Option<i64>,
    /// The punctual driver's storage per pending timer, read while all were pending.
    driver_bytes: Option<usize>,
}

async fn round(kind: Kind, n: usize, rng: &mut u64) -> Round {
    let late = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect::<Vec<_>>());
    let registered = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let all_done = Arc::new(tokio::sync::Notify::new());
    // Every deadline lies after setting up, whatever N: about 3 us per task is plenty here.
    let lead = Duration::from_millis(50) + Duration::from_micros(3) * n as u32;
    let base = Instant::now() + lead;
    let rss_before = rss_bytes();
    for i in 0..n {
        let offset_ns = 1_000_000 + splitmix(rng) % 99_000_000;
        let deadline = base + Duration::from_nanos(offset_ns);
        let (late, registered, done, all_done) = (
            Arc::clone(&late),
            Arc::clone(&registered),
            Arc::clone(&done),
            Arc::clone(&all_done),
        );
        tokio::spawn(async move {
            let lateness = match kind {
                Kind::Punctual => {
                    let sleep = punctual::future::sleep_until(deadline);
                    registered.fetch_add(1, Ordering::Relaxed);
                    sleep.await.lateness()
                }
                Kind::Tokio => {
                    let sleep = tokio::time::sleep_until(deadline.into());
                    registered.fetch_add(1, Ordering::Relaxed);
                    sleep.await;
                    Instant::now().saturating_duration_since(deadline)
                }
            };
            late[i].store(lateness.as_nanos() as u64, Ordering::Relaxed);
            if done.fetch_add(1, Ordering::AcqRel) + 1 == n {
                all_done.notify_one();
            }
        });
    }
    // Every task has polled its sleep once when it has counted itself.
    while registered.load(Ordering::Relaxed) < n {
        tokio::task::yield_now().await;
    }
    let rss_per_task = rss_bytes()
        .zip(rss_before)
        .map(|(after, before)| (after as i64 - before as i64) / n as i64);
    let driver_bytes = (kind == Kind::Punctual).then(|| {
        let driver = Driver::global();
        driver.allocated_bytes() / driver.pending().max(1)
    });
    if Instant::now() >= base {
        eprintln!(
            "warning: setting up {n} timers overran the {lead:?} lead; early deadlines are late"
        );
    }
    all_done.notified().await;
    Round {
        late_ns: late.iter().map(|l| l.load(Ordering::Relaxed)).collect(),
        rss_per_task,
        driver_bytes,
    }
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Resident memory from `/proc/self/statm` (Linux), assuming 4 KiB pages.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// CPU time of every thread of this process, from `/proc/self/task/*/schedstat` (Linux).
fn process_cpu() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}
