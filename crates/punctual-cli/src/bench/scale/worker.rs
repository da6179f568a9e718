//! One method at one N, in a process of its own (so that its memory and CPU are its own):
//! rounds of N tasks, each awaiting one timer with a random deadline, on a tokio
//! current-thread runtime (or a multi-thread one, for the methods that say so), until enough
//! timers have fired.
//!
//! The measuring costs the tasks little on purpose: a task's lateness goes to a slot of its
//! own, preallocated, with one relaxed store; no lock, no allocation, no shared vector.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::rounds::{Rounds, TimerRows};
use super::timers::{self, MeasureTimer, ScaleTimer};
use super::{ScaleResult, FIRST_DEADLINE, SPREAD};
use crate::bench::method::{MethodSpec, ScaleRuntime};
use crate::export::json::percentiles;
use crate::rng::Rng;
use crate::sys::{self, Platform};

/// What the parent asks a worker process to measure.
#[derive(Debug, Clone)]
pub struct WorkerArgs {
    pub method: &'static MethodSpec,
    pub timers: u64,
    pub samples: u64,
    /// Rounds to run at least.
    pub rounds: u64,
    pub seed: u64,
    /// `--export-timers`: the file the run created, to append each timer's row to.
    pub export_timers: Option<PathBuf>,
}

impl WorkerArgs {
    /// Rounds that append their timers' rows where `--export-timers` asked.
    pub fn rounds(&self) -> anyhow::Result<Rounds> {
        let rows = self
            .export_timers
            .as_deref()
            .map(|path| TimerRows::append(path, self.method.name, self.timers))
            .transpose()?;
        Ok(Rounds::new(rows))
    }
}

/// Time to set up one round before its first deadline: spawning and first-polling a task
/// takes about a microsecond here; three leave room for a slower machine.
fn lead(timers: usize) -> Duration {
    Duration::from_millis(2) + Duration::from_micros(3) * timers.min(u32::MAX as usize) as u32
}

/// Measures `args.method`; the entry point of a worker process.
pub fn run(args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
    let scale = args.method.scale()?;
    let allocator = sys::Os::steady_allocator();
    // A multi-thread runtime has a worker per CPU (see `measure`), and so a driver each.
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let mut result = timers::with_timer(scale.timer, cpus, Fire(args))??;
    result.allocator = allocator.map(str::to_string);
    Ok(result)
}

/// The fire workload, on whichever timer the method names.
struct Fire<'a>(&'a WorkerArgs);

impl MeasureTimer for Fire<'_> {
    type Output = anyhow::Result<ScaleResult>;

    fn measure<T: ScaleTimer>(self, timer: T) -> anyhow::Result<ScaleResult> {
        measure(timer, self.0)
    }
}

/// What the tasks of one round share.
struct Tally {
    late_ns: Box<[AtomicI64]>,
    registered: AtomicUsize,
    left: AtomicUsize,
    all_done: Notify,
}

/// One round's findings besides the lateness.
struct Round {
    late_ns: Vec<i64>,
    deadlines_ns: Vec<u64>,
    /// What the OS said to the executor's real-time priority, where the timer asks for one.
    executor_scheduling: Option<Result<String, String>>,
    cpu: Option<Duration>,
    rss_growth: Option<i64>,
    timer_bytes: u64,
    overran: bool,
}

fn measure<T: ScaleTimer>(timer: T, args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
    let runtime = match args.method.scale()?.runtime {
        ScaleRuntime::CurrentThread => tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?,
        // A worker per CPU, as tokio's default; the main thread only sets rounds up.
        ScaleRuntime::MultiThread => tokio::runtime::Builder::new_multi_thread()
            .enable_time()
            .build()?,
    };
    let n = usize::try_from(args.timers)?;
    let mut rng = Rng::new(args.seed);
    let mut all = args.rounds()?;
    let mut overran = 0u64;
    let mut cpu = Some(Duration::ZERO);
    let (mut rss_growth, mut timer_bytes) = (None, 0);
    let driver_before = timer.driver_cpu();
    let mut executor_scheduling = None;
    // A Ctrl-C (see `INTERRUPTED`) ends the rounds once the one under way is done.
    while all.count == 0
        || !crate::bench::interrupted()
            && (all.count < args.rounds.max(1) || all.recorder.count() < args.samples)
    {
        let round = runtime.block_on(round(&timer, n, &mut rng));
        all.add(&round.deadlines_ns, &round.late_ns)?;
        cpu = cpu.zip(round.cpu).map(|(a, b)| a + b);
        if all.count == 1 {
            // Later rounds reuse the memory the first one gave back to the allocator.
            rss_growth = round.rss_growth;
            timer_bytes = round.timer_bytes;
            executor_scheduling = round.executor_scheduling;
        }
        overran += u64::from(round.overran);
    }
    // The driver publishes its CPU time once it has no timers left.
    std::thread::sleep(Duration::from_millis(2));
    let driver_cpu = timer
        .driver_cpu()
        .zip(driver_before)
        .map(|(after, before)| after.saturating_sub(before));
    let executor_floor = (n >= super::MIN_TIMERS_FOR_RSS)
        .then(|| runtime.block_on(super::floor::executor_floor(n, args.seed)));
    let summary = all.recorder.summary();
    let samples = summary.lateness.samples.max(1);
    let per_timer = |d: Duration| (d.as_nanos() / u128::from(samples)) as u64;
    let fired = timer.driver_stats().filter(|stats| stats.wakes > 0);
    Ok(ScaleResult {
        method: args.method.name.to_string(),
        ours: args.method.ours,
        timers: args.timers,
        rounds: all.count,
        lateness: summary.lateness,
        cpu_ns_per_timer: cpu.map(per_timer),
        driver_cpu_ns_per_timer: driver_cpu.map(per_timer),
        driver_fire_lateness_mean_ns: fired
            .map(|stats| (stats.fire_lateness_total.as_nanos() / u128::from(stats.wakes)) as u64),
        driver_fire_lateness_max_ns: fired.map(|stats| stats.fire_lateness_max.as_nanos() as u64),
        stalls: all.stalls,
        by_round: all.by_round,
        rss_bytes_per_timer: rss_growth
            .filter(|_| n >= super::MIN_TIMERS_FOR_RSS)
            .map(|g| g / n as i64),
        timer_bytes,
        setup_overran: overran,
        executor_floor_ns_per_task: executor_floor.map(|d| d.as_nanos() as u64),
        allocator: None,
        scheduling: describe_scheduling(executor_scheduling, timer.driver_scheduling()),
        lateness_percentiles: percentiles(all.recorder.histogram()),
        repeats: Vec::new(),
        over_rounds: None,
    })
}

async fn round<T: ScaleTimer>(timer: &T, n: usize, rng: &mut Rng) -> Round {
    let tally = Arc::new(Tally {
        late_ns: (0..n).map(|_| AtomicI64::new(0)).collect(),
        registered: AtomicUsize::new(0),
        left: AtomicUsize::new(n),
        all_done: Notify::new(),
    });
    let spread_ns = SPREAD.as_nanos() as u64;
    let rss_before = sys::Os::resident_bytes();
    let base = Instant::now() + lead(n);
    let mut deadlines_ns = Vec::with_capacity(n);
    for i in 0..n {
        let offset_ns = rng.below(spread_ns);
        deadlines_ns.push(offset_ns);
        let deadline = base + FIRST_DEADLINE + Duration::from_nanos(offset_ns);
        let (timer, tally) = (timer.clone(), Arc::clone(&tally));
        tokio::spawn(async move {
            let sleep = timer.sleep_until(deadline);
            // Counted before the await, whose first poll registers the timer in this same
            // poll of the task: once every task has counted, every timer is pending.
            tally.registered.fetch_add(1, Relaxed);
            sleep.await;
            tally.late_ns[i].store(signed_nanos(Instant::now(), deadline), Relaxed);
            if tally.left.fetch_sub(1, AcqRel) == 1 {
                tally.all_done.notify_one();
            }
        });
    }
    while tally.registered.load(Relaxed) < n {
        tokio::task::yield_now().await;
    }
    let overran = Instant::now() >= base + FIRST_DEADLINE;

    let rss_growth = sys::Os::resident_bytes()
        .zip(rss_before)
        .map(|(after, before)| after as i64 - before as i64);
    let timer_bytes = timer.timer_bytes();
    // The executor stays busy until the deadlines start, as a server's would. Idle through
    // the whole set-up instead, its thread is woken by the first timers onto whichever CPU
    // the OS picks, on a small machine often the timer thread's, where the two share one
    // CPU until the load balancer parts them tens of milliseconds later: a backlog that
    // says more about that wake-up than about the timers.
    while Instant::now() < base {
        tokio::task::yield_now().await;
    }
    // Real-time only while the deadlines run: a thread at SCHED_FIFO through the busy
    // set-up as well would use up the CPU's real-time budget (95% of each second, by
    // default) and be stopped for the rest of the second.
    let executor_scheduling = timer.executor_priority().map(|priority| {
        punctual::rt::set_realtime_priority(priority)
            .map(|s| s.to_string())
            .map_err(|refused| refused.to_string())
    });
    let cpu_before = sys::Os::process_cpu_time();
    tally.all_done.notified().await;
    if executor_scheduling.as_ref().is_some_and(Result::is_ok) {
        let _ = punctual::rt::set_normal_scheduling();
    }
    let cpu = sys::Os::process_cpu_time()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    let late_ns: Vec<i64> = tally.late_ns.iter().map(|l| l.load(Relaxed)).collect();
    Round {
        deadlines_ns,
        executor_scheduling,
        late_ns,
        cpu,
        rss_growth,
        timer_bytes,
        overran,
    }
}

/// One line on what real-time scheduling a method got, for those that ask for it.
fn describe_scheduling(
    executor: Option<Result<String, String>>,
    driver: Option<Result<String, String>>,
) -> Option<String> {
    Some(match (executor?, driver?) {
        (Ok(executor), Ok(driver)) => {
            format!("executor thread {executor} while the deadlines run, driver thread {driver}")
        }
        (Err(refused), _) => format!("refused, so at the default scheduling: {refused}"),
        (_, Err(refused)) => {
            format!("driver thread refused, so at the default scheduling: {refused}")
        }
    })
}

fn signed_nanos(woke: Instant, deadline: Instant) -> i64 {
    if woke >= deadline {
        i64::try_from((woke - deadline).as_nanos()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from((deadline - woke).as_nanos()).unwrap_or(i64::MAX)
    }
}
