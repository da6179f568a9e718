//! The command line, and nothing else: every value is checked by its parser, so bad input
//! is a usage error (exit code 2) with a message that says what to type instead.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::bench::load::LoadKind;
use crate::bench::method::MethodSpec;
use crate::bench::registry;
use crate::bench::threads::WaitRange;
use crate::bench::{Mode, Phase};
use crate::intervals::bootstrap;
use crate::sys::waits::THIS_OS;
use crate::units;
use punctual::Strategy;

#[derive(Debug, Parser)]
#[command(name = "punctual", bin_name = "punctual", version, about = "How late does each way to wait wake up, here?", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare every way to wait, side by side, on this machine: the wait table.
    Bench(Box<BenchArgs>),
    /// What each way of spinning buys: CPU per wait against tail lateness, for a sweep of
    /// fixed margins and spin_sleep's accuracies, with the adaptive methods placed among them.
    Frontier(Box<FrontierArgs>),
    /// Many sleepers at once: N threads per method, each sleeping random waits.
    Threads(Box<ThreadsArgs>),
    /// N timers pending at once, punctual's driver beside tokio::time.
    Scale(Box<ScaleArgs>),
    /// What does a plain OS sleep really cost here? Detects the sleep quantum.
    Probe(ProbeArgs),
    /// Periodic wake-ups on a fixed grid, measured and reported as cyclictest does.
    Grid(GridArgs),
    /// Turn one `--export-json` file of any mode into an HTML page, or two into a page that
    /// compares them (two machines, or before and after a change).
    Report(ReportArgs),
}

#[derive(Debug, Args)]
#[command(after_help = BENCH_AFTER_HELP)]
pub struct BenchArgs {
    /// Methods to compare, comma-separated, and the groups `all` (the methods that run on
    /// every OS) and `os` (this OS's own ways to wait: Sleep, timers, epoll...); see
    /// --list-methods.
    #[arg(long, value_name = "LIST", default_value = "all", default_value_ifs([("preset", "timetest", "os"), ("preset", "deadline-sleep", "std,native,hybrid")]), value_parser = parse_methods)]
    pub methods: MethodList,

    /// Wait lengths, comma-separated (e.g. 100us,1ms,10ms).
    #[arg(long = "wait", value_name = "LIST", allow_hyphen_values = true, default_value = "100us,1ms,10ms", default_value_ifs([("preset", "timetest", "100ms"), ("preset", "deadline-sleep", "50ms,20ms,10ms,5ms,1ms,500us,100us,1us")]), value_parser = units::parse_wait_list)]
    pub waits: WaitList,

    /// table: the bench's own; timetest: the layout of Windows' timetest.exe (MIN, AVG, MAX
    /// and MAX OVER of each wait's time, in ticks of the clock, whose frequency it names);
    /// deadline-sleep: the deadline_sleep exercise's errors (median and worst
    /// lateness per wait and method, with CPU per wait).
    #[arg(
        long,
        value_enum,
        default_value = "table",
        default_value_ifs([("preset", "timetest", "timetest"), ("preset", "deadline-sleep", "deadline-sleep")])
    )]
    pub format: TableFormat,

    /// Another tool's defaults (each can still be given). timetest: Windows' timetest.exe,
    /// 50 waits of 100 ms with no warm-up through this OS's own ways to wait (on Windows
    /// Sleep, waitable timers and a QPC busy-wait), --format timetest. deadline-sleep: the C++ deadline_sleep exercise, 5 sleeps at each
    /// of 50, 20, 10, 5 and 1 ms, 500, 100 and 1 us, in that order, with no warm-up, through
    /// std::thread::sleep, punctual's native and hybrid sleepers (each fresh at the start),
    /// --format deadline-sleep.
    #[arg(long, value_enum, conflicts_with_all = ["duration", "scale", "frontier", "threads"])]
    pub preset: Option<Preset>,

    /// Waits to measure per method and wait length [default: measure for --duration].
    #[arg(long, value_name = "N", allow_hyphen_values = true, conflicts_with = "duration", default_value_ifs([("preset", "timetest", "50"), ("preset", "deadline-sleep", "5")]), value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub samples: Option<u64>,

    /// Measuring time per method and wait length.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, default_value = "900ms", value_parser = parse_duration_budget)]
    pub duration: Duration,

    /// Unrecorded waits per method before measuring each wait length.
    #[arg(long, value_name = "N", default_value_t = 20, default_value_ifs([("preset", "timetest", "0"), ("preset", "deadline-sleep", "0")]), value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub warmup: u64,

    /// Rounds: measure every method at every wait K times (each round as long as a run of
    /// one, the methods interleaved inside it), and show each figure as its median over the
    /// rounds with a confidence interval (see docs/intervals.md). An interval needs at
    /// least 6 rounds to be 95% sure; with fewer the table says how sure it can be.
    // With the deprecated --frontier, --threads and --scale, `usage::check_bench` refuses it
    // and names the subcommand that takes it, which clap's conflict message could not.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub repeat: u64,

    /// How sure the intervals of --repeat are, a percentage from 50 up to 100.
    #[arg(long, value_name = "PERCENT", default_value = "95", requires = "repeat", value_parser = bootstrap::parse_confidence)]
    pub confidence: f64,

    /// Two methods to compare, A,B: A/B, A's p50, p99 and CPU per wait over B's at each
    /// wait, with its interval, from the paired rounds [default with --repeat 2 or
    /// more: the recommended method against each other one].
    #[arg(long, value_name = "A,B", value_parser = parse_compare, conflicts_with_all = ["scale", "frontier", "threads"])]
    pub compare: Option<ComparePair>,

    /// single: back-to-back waits; grid: absolute deadlines start + k * wait.
    #[arg(long, value_enum, default_value = "single")]
    pub mode: Mode,

    /// aligned: each wait starts right after the last; scrambled: random work first.
    #[arg(long, value_enum, default_value = "aligned")]
    pub phase: Phase,

    #[command(flatten)]
    pub run: RunArgs,

    /// Write the results as JSON (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,

    /// Write the results as CSV (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,

    /// Write the results as a Markdown table (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,

    /// Draw the lateness distribution of every method (log axis) to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = parse_svg_path)]
    pub plot: Option<PathBuf>,

    /// Write one self-contained HTML page of the run (per wait the table, the lateness
    /// distribution of every method and CPU per wait against p99 and p99.9; the environment
    /// and the command), for a browser, a phone or a printer.
    #[arg(long, value_name = "FILE.html", value_parser = parse_html_path)]
    pub report: Option<PathBuf>,

    /// Deprecated: `punctual scale N,...` (this flag goes in the next release).
    #[arg(long, value_name = "LIST", value_parser = parse_timer_counts, conflicts_with_all = ["waits", "duration", "warmup", "mode", "phase", "plot"])]
    pub scale: Option<TimerCounts>,

    /// Deprecated, with --scale: `punctual scale --rounds N`.
    #[arg(long, value_name = "N", requires = "scale", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub rounds: Option<u64>,

    /// Deprecated, with --scale: `punctual scale --export-timers FILE`.
    #[arg(long, value_name = "FILE", requires = "scale", value_parser = parse_timer_rows_path)]
    pub export_timers: Option<PathBuf>,

    /// Deprecated: `punctual frontier` (this flag goes in the next release).
    #[arg(long, conflicts_with_all = ["methods", "duration", "mode", "scale", "export_csv", "export_markdown"])]
    pub frontier: bool,

    /// Deprecated: `punctual threads N` (this flag goes in the next release).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024), conflicts_with_all = ["waits", "samples", "warmup", "mode", "phase", "scale", "frontier", "plot", "export_csv", "export_markdown"])]
    pub threads: Option<u64>,

    /// Deprecated, with --threads: `punctual threads N --wait-range MIN..MAX`.
    #[arg(long, value_name = "MIN..MAX", requires = "threads", value_parser = parse_wait_range)]
    pub wait_range: Option<WaitRange>,

    /// List the methods and exit.
    #[arg(long)]
    pub list_methods: bool,
}

impl BenchArgs {
    /// The `punctual frontier` that the deprecated `bench --frontier` stands for.
    pub fn as_frontier(&self) -> FrontierArgs {
        FrontierArgs {
            waits: self.waits.clone(),
            samples: self.samples,
            warmup: self.warmup,
            // The one-round run the deprecated flag always made (`bench --repeat` conflicts
            // with it): `punctual frontier --repeat 1`.
            repeat: Some(1),
            confidence: self.confidence,
            phase: self.phase,
            run: self.run.clone(),
            export_json: self.export_json.clone(),
            plot: self.plot.clone(),
            report: self.report.clone(),
        }
    }

    /// The `punctual threads N` that the deprecated `bench --threads N` stands for.
    pub fn as_threads(&self, threads: u64) -> ThreadsArgs {
        ThreadsArgs {
            threads,
            methods: self.methods.clone(),
            wait_range: self.wait_range,
            duration: self.duration,
            // `bench --repeat` conflicts with `--threads`: the one round it always ran.
            repeat: 1,
            confidence: self.confidence,
            run: self.run.clone(),
            export_json: self.export_json.clone(),
            report: self.report.clone(),
        }
    }

    /// The `punctual scale N,...` that the deprecated `bench --scale N,...` stands for.
    pub fn as_scale(&self, timers: TimerCounts) -> ScaleArgs {
        ScaleArgs {
            timers: Some(timers),
            workload: Workload::Fire,
            pending: None,
            churn: None,
            duration: None,
            workers: None,
            fire_worker: None,
            fire_seed: 1,
            server_worker: None,
            server_seed: 1,
            methods: self.methods.clone(),
            samples: self.samples,
            rounds: self.rounds,
            // `bench --repeat` conflicts with `--scale`: the one round it always ran.
            repeat: 1,
            confidence: self.confidence,
            export_timers: self.export_timers.clone(),
            run: self.run.clone(),
            export_json: self.export_json.clone(),
            export_csv: self.export_csv.clone(),
            export_markdown: self.export_markdown.clone(),
            report: self.report.clone(),
        }
    }
}

/// What every bench mode shares: the state of the machine during the run.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Background busy threads, at lower, the same or higher priority than the waits.
    #[arg(long, value_enum, default_value = "none")]
    pub load: LoadKind,

    /// How many load threads [default: one per CPU].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub load_threads: Option<u64>,

    /// Hold /dev/cpu_dma_latency at this many microseconds for the run (0: the CPUs idle in
    /// their shallowest state; on a virtual machine an idle vCPU then polls instead of
    /// halting, which no CPU column shows). Named in the environment header; Linux only.
    #[arg(long, value_name = "US", value_parser = clap::value_parser!(u32).range(0..=2_000_000_000))]
    pub dma_latency: Option<u32>,

    /// Replace every method and clock with deterministic stand-ins (for tests).
    #[arg(long, hide = true)]
    pub mock_timer: bool,
}

/// `punctual frontier`: for each --wait, in one interleaved run, punctual's native sleep
/// then a spin with a sweep of fixed margins (the frontier), spin_sleep with a sweep of
/// native accuracies, and the hybrid and async-spin placed among them: CPU per wait against
/// p99 and p99.9 lateness.
#[derive(Debug, Clone, Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct FrontierArgs {
    /// Wait lengths, comma-separated (e.g. 100us,1ms,10ms).
    #[arg(long = "wait", value_name = "LIST", allow_hyphen_values = true, default_value = "100us,1ms,10ms", value_parser = units::parse_wait_list)]
    pub waits: WaitList,

    /// Samples per contender and wait [default: about 2 s of waiting each, 500 to 5,000].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub samples: Option<u64>,

    /// Unrecorded waits per contender before measuring each wait length.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub warmup: u64,

    /// Rounds: measure every contender at every wait K times, interleaved, and place each
    /// adaptive method against a monotone fit of every fixed margin's every round, with an
    /// interval: on, above or below the frontier, or "cannot tell at this noise". The
    /// default is the fewest rounds an interval can be 95% sure with, 6 (the run takes K
    /// times as long as one round); 1 gives the envelope of one run alone.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub repeat: Option<u64>,

    /// How sure the intervals of --repeat are, a percentage from 50 up to 100.
    #[arg(long, value_name = "PERCENT", default_value = "95", value_parser = bootstrap::parse_confidence)]
    pub confidence: f64,

    /// aligned: each wait starts right after the last; scrambled: random work first.
    #[arg(long, value_enum, default_value = "aligned")]
    pub phase: Phase,

    #[command(flatten)]
    pub run: RunArgs,

    /// Write the results as JSON (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,

    /// Draw CPU per wait against p99 and p99.9 lateness, every contender, to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = parse_svg_path)]
    pub plot: Option<PathBuf>,

    /// Write one self-contained HTML page of the run.
    #[arg(long, value_name = "FILE.html", value_parser = parse_html_path)]
    pub report: Option<PathBuf>,
}

/// `punctual threads N`: N threads per method sleeping at once, each drawing its waits at
/// random from --wait-range, for --duration per method (methods take turns in slices of at
/// most a second); sleeps completed, cores used, lateness, and how often the hybrid's margin
/// hit its CPU cap.
#[derive(Debug, Clone, Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct ThreadsArgs {
    /// Threads per method, all sleeping at once.
    #[arg(value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,

    /// Methods to compare, comma-separated (see `punctual bench --list-methods`); left out
    /// (or `all`), native, hybrid and spin_sleep.
    #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_methods)]
    pub methods: MethodList,

    /// The waits drawn, uniformly, both ends included [default: 100us..2ms].
    #[arg(long, value_name = "MIN..MAX", value_parser = parse_wait_range)]
    pub wait_range: Option<WaitRange>,

    /// Measuring time per method.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, default_value = "900ms", value_parser = parse_duration_budget)]
    pub duration: Duration,

    /// Rounds: run every method's crew for --duration K times, the methods taking turns in
    /// each round, and show each method's p50, p99 and p99.9 as the median over the rounds
    /// with a confidence interval (see docs/intervals.md).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub repeat: u64,

    /// How sure the intervals of --repeat are, a percentage from 50 up to 100.
    #[arg(long, value_name = "PERCENT", default_value = "95", requires = "repeat", value_parser = bootstrap::parse_confidence)]
    pub confidence: f64,

    #[command(flatten)]
    pub run: RunArgs,

    /// Write the results as JSON (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,

    /// Write one self-contained HTML page of the run.
    #[arg(long, value_name = "FILE.html", value_parser = parse_html_path)]
    pub report: Option<PathBuf>,
}

/// `punctual scale N,...`: for each N listed, N timers pending at once with deadlines spread
/// over 1 to 100 ms, one task each on a tokio runtime; lateness percentiles, CPU and memory
/// per timer, punctual's driver beside tokio::time. Each method and N runs in a fresh
/// process; rounds repeat until --samples timers have fired. `--workload server`: a
/// server's timeouts instead, most cancelled, seconds ahead, from every worker.
#[derive(Debug, Clone, Args)]
#[command(after_help = RUN_AFTER_HELP)]
pub struct ScaleArgs {
    /// The numbers of timers pending at once, comma-separated (e.g. 1,1000,100000); for
    /// the fire workload, which needs them.
    #[arg(value_name = "N,...", value_parser = parse_timer_counts)]
    pub timers: Option<TimerCounts>,

    /// What the timers do: fire (N,...) or, as a server's timeouts, mostly get cancelled
    /// (--pending, --churn, --duration).
    #[arg(long, value_enum, default_value = "fire")]
    pub workload: Workload,

    /// With --workload server: timeouts registered at once before the churn [default:
    /// 1000000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_SCALE_TIMERS))]
    pub pending: Option<u64>,

    /// With --workload server: timeouts registered a second during the run [default:
    /// 100000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_SCALE_TIMERS))]
    pub churn: Option<u64>,

    /// With --workload server: how long the churn runs, per method [default: 10s].
    #[arg(long, value_name = "TIME", value_parser = parse_duration_budget)]
    pub duration: Option<Duration>,

    /// With --workload server: workers of the multi-thread runtime [default: one per CPU].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub workers: Option<u64>,

    /// Measure one method at the one N given and print the result as JSON (how the fire
    /// workload runs each method and N in a process of its own).
    #[arg(
        long,
        hide = true,
        value_name = "METHOD",
        conflicts_with = "server_worker"
    )]
    pub fire_worker: Option<String>,

    /// The fire worker's seed for its deadlines.
    #[arg(long, hide = true, default_value_t = 1)]
    pub fire_seed: u64,

    /// Measure one method under the server workload and print the result as JSON (how the
    /// server workload runs each method in a process of its own).
    #[arg(long, hide = true, value_name = "METHOD")]
    pub server_worker: Option<String>,

    /// The server worker's seed for its timeouts.
    #[arg(long, hide = true, default_value_t = 1)]
    pub server_seed: u64,

    /// Methods to compare, comma-separated: async, async-rt, async-spin and tokio (`all`,
    /// the default), and when named, async-mt, async-mtw and tokio-mt (on a tokio
    /// multi-thread runtime). With --workload server, `all` is async, tokio, async-mt,
    /// async-mtw and tokio-mt.
    #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_methods)]
    pub methods: MethodList,

    /// At least this many timers per method and N [default: 100].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub samples: Option<u64>,

    /// At least this many rounds of N timers per method and N, so that a run also shows
    /// what the first round does not (the executor's memory after many tasks, a stall that
    /// comes every few seconds) [default: 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub rounds: Option<u64>,

    /// Rounds: run every method K times at every N (under --workload server, K times), each
    /// time in a fresh process, the methods' order alternating from round to round, and
    /// show each figure as its median over the rounds with a confidence interval (see
    /// docs/intervals.md), and each of ours against tokio from the rounds they shared.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub repeat: u64,

    /// How sure the intervals of --repeat are, a percentage from 50 up to 100.
    #[arg(long, value_name = "PERCENT", default_value = "95", requires = "repeat", value_parser = bootstrap::parse_confidence)]
    pub confidence: f64,

    /// Every timer of every round, one CSV row each (method, timers, round, deadline_ns
    /// after the round's first possible deadline, late_ns), to see where a p99 came from: a
    /// stall, and the backlog after it. Some 36 bytes a timer.
    #[arg(long, value_name = "FILE", value_parser = parse_timer_rows_path)]
    pub export_timers: Option<PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,

    /// Write the results as JSON (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,

    /// Write the results as CSV (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,

    /// Write the results as a Markdown table (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,

    /// Write one self-contained HTML page of the run (one part per N).
    #[arg(long, value_name = "FILE.html", value_parser = parse_html_path)]
    pub report: Option<PathBuf>,
}

/// What the scale mode's timers do (`--workload`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// N timers that all fire, due 1 to 100 ms ahead.
    Fire,
    /// --pending timeouts pending, then --churn registered a second for --duration, each 1
    /// ms to 60 s (log-uniform), nine in ten cancelled at a uniform time before their
    /// deadline; registered and cancelled from the runtime's workers, one method and
    /// runtime per process.
    Server,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// One `punctual bench --export-json` file (a wait table or a --frontier run), or two
    /// to compare: each ratio is B/A, the second's figure over the first's.
    #[arg(value_name = "RESULTS.json", num_args = 1..=2, required = true)]
    pub exports: Vec<PathBuf>,

    /// The HTML page to write.
    #[arg(short, long, value_name = "FILE.html", value_parser = parse_html_path)]
    pub output: PathBuf,

    /// With two exports that both have rounds (--repeat), how sure the permutation test of
    /// their rounds must be to mark a figure worse or better, a percentage from 50 up to 100
    /// [default: 95].
    #[arg(long, value_name = "PERCENT", value_parser = bootstrap::parse_confidence)]
    pub confidence: Option<f64>,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Print the findings as JSON instead of a report.
    #[arg(long)]
    pub json: bool,

    /// Time this bench method instead of the OS's plain sleep (Win32 `Sleep()` on Windows,
    /// `nanosleep()` at the default timer slack on Linux and macOS); see
    /// `punctual bench --list-methods`.
    #[arg(long, value_name = "NAME", value_parser = parse_probe_method, conflicts_with = "mock_timer")]
    pub method: Option<&'static MethodSpec>,

    /// Longest time spent timing each request in each phase.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, default_value = "800ms", value_parser = parse_duration_budget)]
    pub time_per_request: Duration,

    /// Replace the OS sleep and clocks with a deterministic model (for tests).
    #[arg(long, hide = true)]
    pub mock_timer: bool,

    /// With --mock-timer: the modelled sleep quantum (none: a high-resolution timer).
    #[arg(long, hide = true, value_parser = units::parse_wait, requires = "mock_timer")]
    pub mock_quantum: Option<Duration>,
}

/// `punctual grid`: cyclictest's periodic latency test, with any of punctual's strategies.
///
/// Output follows cyclictest: one `T:` summary line per thread (values in microseconds), then
/// a `Q:` line with the median, 99th and 99.9th percentiles in nanoseconds and the periods
/// missed. A refused real-time setting (priority, memory lock, DMA latency, affinity) stops
/// the run with exit code 1 before anything is measured, as cyclictest does.
#[derive(Debug, Args)]
#[command(after_help = GRID_AFTER_HELP)]
pub struct GridArgs {
    /// Period of the wake-ups (cyclictest -i, which takes microseconds).
    #[arg(short, long, value_name = "TIME", default_value = "1ms", allow_hyphen_values = true, value_parser = parse_interval)]
    pub interval: Duration,

    /// Wake-ups per thread [default: run for --duration].
    #[arg(short, long, value_name = "N", conflicts_with = "duration", allow_negative_numbers = true, value_parser = parse_loops)]
    pub loops: Option<u64>,

    /// How long to run (e.g. 10s, 5m, 2h, 1d); Ctrl-C stops early and still reports.
    #[arg(short = 'D', long, value_name = "TIME", default_value = "10s", allow_hyphen_values = true, value_parser = units::parse_run_length)]
    pub duration: Duration,

    /// Measuring threads, or `all` for one per CPU this process may use (-t alone).
    #[arg(short, long, value_name = "N", num_args = 0..=1, default_value = "1", default_missing_value = "all", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: ThreadCount,

    /// Pin thread N to the Nth of these CPUs, round robin (e.g. 2 or 0,2-3) [alone: every CPU this process may use].
    #[arg(short, long, value_name = "CPUS", num_args = 0..=1, require_equals = false, default_missing_value = "all", value_parser = parse_cpus)]
    pub affinity: Option<CpuList>,

    /// Run each measuring thread under SCHED_FIFO at this priority, 1-99 (Windows:
    /// time-critical; macOS: time-constraint).
    #[arg(short, long, value_name = "P", allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(1..=99))]
    pub priority: Option<i32>,

    /// Lock all memory into RAM (mlockall) for the run.
    #[arg(short, long, visible_alias = "mlockall")]
    pub mlock: bool,

    /// Hold /dev/cpu_dma_latency at this many microseconds for the run (0: shallowest idle).
    #[arg(long, value_name = "US", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=2_000_000_000))]
    pub dma_latency: Option<u32>,

    /// How each thread waits for its next period.
    #[arg(short, long, value_name = "STRATEGY", default_value = "hybrid", value_parser = parse_strategy)]
    pub strategy: Strategy,

    /// Print only the final results (cyclictest -q); the environment goes to stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print cyclictest's latency histogram, one row per microsecond up to MAX_US.
    #[arg(long, value_name = "MAX_US", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub histogram: Option<u32>,

    /// Write the results in the rt-tests JSON layout of cyclictest --json (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Replace the clock, the waits and the machine with deterministic stand-ins (for tests).
    #[arg(long, hide = true)]
    pub mock_timer: bool,
}

const GRID_AFTER_HELP: &str = "\
Each T: line (cyclictest's, in microseconds) is followed by a Q: line: the median, 99th and
99.9th percentile lateness in nanoseconds, and the periods missed.

Ctrl-C stops the run after the wake-up under way (a wait for a period over 50 ms goes in
50 ms slices, so it ends within about that), and the run still reports (exit code 0); a
second Ctrl-C ends it at once, and an existing --json FILE is then left as it was: it is
replaced only by a run that reports. A closed standard output (`| head`) ends the output
quietly (exit code 0).

Exit codes: 0 measured; 1 a setting was refused (then nothing is measured), an output could
not be written, or the run failed; 2 bad arguments.";

/// What every bench mode does with its outputs and Ctrl-C.
macro_rules! run_after_help {
    () => {
        "\
Every output file is checked before anything is measured, and written only once the run is
done (an existing file is replaced whole, or left as it was). Ctrl-C stops the run at the end
of the batch under way (of the round, for the scale mode; of the slice, for the threads mode):
what was measured is still printed and exported, marked as stopped early (\"interrupted\":
true in the JSON); a second Ctrl-C ends it at once. A closed standard output (`| head`) ends
the table quietly (exit code 0).

Exit codes: 0 measured; 1 an output could not be written (each that could be is) or the run
failed; 2 bad arguments; 130 stopped early by Ctrl-C, with the results measured until then."
    };
}
const BENCH_AFTER_HELP: &str = concat!(
    "--frontier, --threads N and --scale N,... are deprecated: they are `punctual frontier`,\n",
    "`punctual threads N` and `punctual scale N,...`, and go in the next release.\n\n",
    run_after_help!()
);

const RUN_AFTER_HELP: &str = run_after_help!();

/// How many measuring threads `--threads` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadCount {
    /// One per CPU the process may run on.
    PerCpu,
    Exactly(usize),
}

/// The CPUs `--affinity` named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuList {
    /// Every CPU the process may run on.
    All,
    Listed(Vec<usize>),
}

/// How `bench` prints its results on standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Table,
    Timetest,
    DeadlineSleep,
}

/// Another tool's defaults, for comparing outputs side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    Timetest,
    DeadlineSleep,
}

/// The methods `--methods` named, in table order.
#[derive(Debug, Clone)]
pub struct MethodList {
    /// Those one thread waits with (each has a sync part).
    pub specs: Vec<&'static MethodSpec>,
    /// Methods only the scale mode has (e.g. `async-rt`).
    pub scale_only: Vec<&'static MethodSpec>,
    /// `all` was asked for (the default): the scale mode then takes all of its own.
    pub all: bool,
}
/// The numbers of timers `--scale` named, in the order given (an alias, so that clap takes
/// the list as one value).
pub type TimerCounts = Vec<u64>;
/// The waits `--wait` named, in the order given.
pub type WaitList = Vec<Duration>;

fn parse_methods(text: &str) -> Result<MethodList, String> {
    if text.trim() == "all" {
        return Ok(MethodList {
            specs: registry::portable().collect(),
            scale_only: Vec::new(),
            all: true,
        });
    }
    let mut chosen = Vec::new();
    let mut scale_only = Vec::new();
    let mut choose = |spec: &'static MethodSpec| {
        if !chosen.iter().any(|c: &&MethodSpec| c.name == spec.name) {
            chosen.push(spec);
        }
    };
    for name in text.split(',').map(str::trim) {
        match name {
            "all" => registry::portable().for_each(&mut choose),
            "os" => registry::os_primitives().for_each(&mut choose),
            _ => {
                let Some(spec) = registry::find(name) else {
                    return Err(format!(
                        "unknown method `{name}` (known here: {}; with --scale also {}; or the groups all, os)",
                        registry::names(),
                        registry::scale_only_names()
                    ));
                };
                if !spec.runs_here() {
                    return Err(format!(
                        "method `{name}` waits with {}'s own primitive; this program was built for {}",
                        spec.runs_on.names(),
                        THIS_OS.name()
                    ));
                }
                if spec.sync.is_none() {
                    if !scale_only.iter().any(|c: &&MethodSpec| c.name == spec.name) {
                        scale_only.push(spec);
                    }
                } else {
                    choose(spec);
                }
            }
        }
    }
    chosen.sort_by_key(|spec| registry::position(spec));
    Ok(MethodList {
        specs: chosen,
        scale_only,
        all: false,
    })
}

/// The two methods `--compare` named: the ratio is the first's figure over the second's.
#[derive(Debug, Clone, Copy)]
pub struct ComparePair {
    pub first: &'static MethodSpec,
    pub second: &'static MethodSpec,
}

fn parse_compare(text: &str) -> Result<ComparePair, String> {
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    let [first, second] = names.as_slice() else {
        return Err(format!(
            "`{text}`: name two methods, e.g. hybrid,spin_sleep"
        ));
    };
    if first == second {
        return Err(format!("`{text}`: name two different methods"));
    }
    let one = |name: &str| -> Result<&'static MethodSpec, String> {
        let spec = registry::find(name).ok_or_else(|| {
            format!(
                "unknown method `{name}` (known here: {})",
                registry::names()
            )
        })?;
        if spec.sync.is_none() {
            return Err(format!(
                "`{name}` is measured only in the scale mode, which has no --compare"
            ));
        }
        Ok(spec)
    };
    Ok(ComparePair {
        first: one(first)?,
        second: one(second)?,
    })
}

fn parse_probe_method(text: &str) -> Result<&'static MethodSpec, String> {
    match parse_methods(text)?.specs.as_slice() {
        [spec] => Ok(spec),
        _ => Err(format!(
            "`{text}`: name one method, e.g. nanosleep or sleep-ms"
        )),
    }
}

/// The most timers `--scale` accepts at once: ten million tasks take gigabytes already.
const MAX_SCALE_TIMERS: u64 = 10_000_000;

fn parse_timer_counts(text: &str) -> Result<TimerCounts, String> {
    text.split(',')
        .map(|item| {
            let item = item.trim();
            let digits = item.replace('_', "");
            let count: u64 = digits.parse().map_err(|_| {
                format!("`{item}` is not a number of timers: write e.g. 1,1000,100000")
            })?;
            match count {
                0 => Err("`0` timers: give at least 1".to_string()),
                n if n > MAX_SCALE_TIMERS => Err(format!(
                    "`{item}` timers is too many: at most {MAX_SCALE_TIMERS}"
                )),
                n => Ok(n),
            }
        })
        .collect()
}

fn parse_wait_range(text: &str) -> Result<WaitRange, String> {
    let (min, max) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not a range of waits: write e.g. 100us..2ms"))?;
    let (min, max) = (
        units::parse_wait(min.trim())?,
        units::parse_wait(max.trim())?,
    );
    if min > max {
        return Err(format!(
            "`{text}`: the shortest wait comes first, e.g. 100us..2ms"
        ));
    }
    Ok(WaitRange { min, max })
}

fn parse_duration_budget(text: &str) -> Result<Duration, String> {
    units::parse_wait(text)
}

fn parse_svg_path(text: &str) -> Result<PathBuf, String> {
    if text.to_ascii_lowercase().ends_with(".svg") {
        Ok(PathBuf::from(text))
    } else {
        Err(format!(
            "`{text}`: the plot is an SVG file; give a name ending in .svg"
        ))
    }
}

fn parse_html_path(text: &str) -> Result<PathBuf, String> {
    let lower = text.to_ascii_lowercase();
    if lower.ends_with(".html") || lower.ends_with(".htm") {
        Ok(PathBuf::from(text))
    } else {
        Err(format!(
            "`{text}`: the report is an HTML page; give a name ending in .html"
        ))
    }
}

/// The rows come from worker processes, whose standard output carries their results.
fn parse_timer_rows_path(text: &str) -> Result<PathBuf, String> {
    if text == "-" {
        Err("the timers' rows go to a file, not standard output; give a file name".to_string())
    } else {
        Ok(PathBuf::from(text))
    }
}

/// Below a microsecond cyclictest's reports, which count whole microseconds, say nothing.
fn parse_interval(text: &str) -> Result<Duration, String> {
    let interval = units::parse_wait(text)?;
    if interval < Duration::from_micros(1) {
        return Err(format!(
            "`{text}` is under a microsecond: the interval must be at least 1us"
        ));
    }
    Ok(interval)
}

fn parse_loops(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("0 loops: give at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of loops: give 1 or more")),
    }
}

fn parse_threads(text: &str) -> Result<ThreadCount, String> {
    if text.trim() == "all" {
        return Ok(ThreadCount::PerCpu);
    }
    match text.trim().parse::<usize>() {
        Ok(n @ 1..=1024) => Ok(ThreadCount::Exactly(n)),
        Ok(_) => Err(format!("`{text}` threads: give 1 to 1024, or all")),
        Err(_) => Err(format!(
            "`{text}` is not a thread count: give 1 to 1024, or all"
        )),
    }
}

/// `all`, or CPU numbers and ranges: `2`, `0,2-3`.
fn parse_cpus(text: &str) -> Result<CpuList, String> {
    if text.trim() == "all" {
        return Ok(CpuList::All);
    }
    let bad = || format!("`{text}` is not a CPU list: write e.g. 2, 0,2 or 0-3");
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        let first: usize = first.trim().parse().map_err(|_| bad())?;
        let last: usize = last.trim().parse().map_err(|_| bad())?;
        if first > last || last >= 4096 {
            return Err(bad());
        }
        cpus.extend(first..=last);
    }
    Ok(CpuList::Listed(cpus))
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse()
        .map_err(|e: punctual::UnknownStrategy| e.to_string())
}
