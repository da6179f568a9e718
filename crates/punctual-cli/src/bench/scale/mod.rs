//! `punctual scale N,...`: N timers pending at once, with random deadlines spread
//! over 1 to 100 ms, each awaited by a task of its own on a tokio current-thread runtime;
//! punctual's driver beside `tokio::time`, at the same N, with the same deadlines.
//!
//! Each method at each N runs in a fresh process of this binary (`--fire-worker`), so
//! its resident memory grows from a clean start and its CPU time is its own; the methods
//! take turns at each N. The worker prints its [`ScaleResult`] as JSON. With `--repeat K`
//! every method runs K times at each N, a fresh process each time, the methods' order
//! alternating from round to round ([`repeats`], [`pool`]).

pub mod command;
mod floor;
pub mod mock;
pub mod pool;
pub mod process;
pub mod repeats;
mod report;
mod rounds;
pub mod server;
pub mod stall;
pub mod timers;
pub mod worker;

pub use report::{RoundSummary, ScaleResult};

use std::path::PathBuf;
use std::time::Duration;

use super::method::{MethodSpec, ScaleRuntime};
use super::session::RunContext;
use super::{Report, RunInfo, RunMode};
use crate::intervals::bootstrap::Settings;
use crate::intervals::format;
use crate::output::file::OutputFile;
use crate::output::progress::Progress;
use crate::units::format_nanos;

/// The earliest deadline, after a round's set-up.
pub const FIRST_DEADLINE: Duration = Duration::from_millis(1);
/// Deadlines fall uniformly in `[FIRST_DEADLINE, FIRST_DEADLINE + SPREAD)`.
pub const SPREAD: Duration = Duration::from_millis(99);
/// Below this many timers, resident memory (counted in pages) says nothing per timer, nor
/// does the executor's floor.
pub const MIN_TIMERS_FOR_RSS: usize = 1000;

/// A checked `punctual scale` invocation.
#[derive(Debug, Clone)]
pub struct ScaleOptions {
    /// Methods with a scale part, in table order.
    pub methods: Vec<&'static MethodSpec>,
    /// The N to run, in order.
    pub timers: Vec<u64>,
    /// At least this many timers per method and N: rounds repeat until they have fired.
    pub samples: u64,
    /// At least this many rounds per method and N.
    pub rounds: u64,
    /// `--export-timers`: every timer's row to this file.
    pub export_timers: Option<PathBuf>,
    /// Rounds of fresh processes of every method at every N (`--repeat`); 1 for a run as
    /// it always was.
    pub repeat: u64,
    /// How the intervals over rounds are computed.
    pub intervals: Settings,
}

/// Round `round`'s seed from the N's: round 0 draws the deadlines a run of one round
/// draws, each later round its own.
pub fn round_seed(seed: u64, round: u64) -> u64 {
    seed.wrapping_add(round.wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// The order of the methods (indices) in round `round`: as the table lists them, then
/// reversed, and so on, so that no method always runs first or last after another.
pub fn round_order(methods: usize, round: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..methods).collect();
    if round % 2 == 1 {
        order.reverse();
    }
    order
}

/// Runs the scale mode: every method at every N, each in a worker process.
pub fn run(options: &ScaleOptions, context: &RunContext) -> anyhow::Result<Report> {
    // The rows go to a temporary file beside it, put in its place once the run is done.
    let rows_file = options
        .export_timers
        .as_deref()
        .map(|path| OutputFile::check(path, ""))
        .transpose()?;
    let rows = rows_file.as_ref().map(OutputFile::stage);
    if let Some(rows) = &rows {
        rounds::TimerRows::create(rows.path())?;
    }
    let mut progress = Progress::steps(
        options.timers.len() * options.methods.len() * options.repeat as usize,
        context.backend,
    );
    let mut seed = context.seed;
    let mut scale = Vec::new();
    let mut step = 0;
    for &timers in &options.timers {
        // The same deadlines for every method at this N within a round (see `round_seed`).
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut rounds = vec![Vec::new(); options.methods.len()];
        'rounds: for round in 0..options.repeat {
            for i in round_order(options.methods.len(), round) {
                let spec = options.methods[i];
                progress.label(match options.repeat {
                    1 => format!("{timers} timers · {}", spec.name),
                    k => format!(
                        "{timers} timers · round {} of {k} · {}",
                        round + 1,
                        spec.name
                    ),
                });
                let args = worker::WorkerArgs {
                    method: spec,
                    timers,
                    samples: options.samples,
                    rounds: options.rounds,
                    seed: round_seed(seed, round),
                    export_timers: rows.as_ref().map(|r| r.path().to_path_buf()),
                };
                let result = match context.backend.scale(&args) {
                    Ok(result) => result,
                    // A Ctrl-C that came while the worker was being started can end it before
                    // it leaves the console's process group: the run stops there, keeping what
                    // the rounds before it measured.
                    Err(_) if context.interrupted() => break 'rounds,
                    Err(error) => return Err(error),
                };
                rounds[i].push(result);
                progress.advance(step, 1.0);
                step += 1;
                if context.interrupted() {
                    break 'rounds;
                }
            }
        }
        scale.extend(
            rounds
                .into_iter()
                .filter_map(|rounds| pool::scale(rounds, &options.intervals)),
        );
        if context.interrupted() {
            break;
        }
    }
    let overran: Vec<String> = scale
        .iter()
        .filter(|r| r.setup_overran > 0)
        .map(|r| {
            format!(
                "{} at {} timers: setting up {} of {} rounds ran past the first deadline, which then woke late",
                r.method, r.timers, r.setup_overran, r.rounds
            )
        })
        .collect();
    progress.finish();
    if let Some(rows) = rows {
        rows.finish()?;
    }
    let mut notes = context.notes();
    notes.extend(overran);
    let mut once = Vec::new();
    for r in &scale {
        if let Some(scheduling) = &r.scheduling {
            once.push(format!("{}: {scheduling}", r.method));
        }
    }
    for r in &scale {
        if let Some(allocator) = &r.allocator {
            once.push(format!(
                "the workers' allocator: {allocator}, so that freeing completed tasks never stalls the executor in one long merge"
            ));
        }
    }
    for note in once {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    notes.extend(comparisons(&scale, &options.methods));
    notes.extend(paired(&scale, &options.methods, &options.intervals));
    Ok(Report {
        schema_version: crate::export::SCHEMA_VERSION,
        environment: context.environment.clone(),
        run: RunInfo {
            mode: RunMode::Scale,
            phase: super::Phase::Aligned,
            load: context.load,
            load_threads: context.load_threads,
            samples_per_method: Some(options.samples),
            duration_per_method_ns: None,
            warmup: 0,
            timers: Some(options.timers.clone()),
            min_rounds: Some(options.rounds),
            interrupted: context.interrupted(),
        },
        results: Vec::new(),
        scale,
        recommendation: None,
        notes,
        command: context.command.clone(),
        histograms: Vec::new(),
    })
}

/// The runtime `method` ran on, from the run's own specs.
fn runtime_of(methods: &[&MethodSpec], method: &str) -> Option<ScaleRuntime> {
    methods
        .iter()
        .find(|spec| spec.name == method)
        .and_then(|spec| spec.scale)
        .map(|scale| scale.runtime)
}

/// The peer the comparisons set each of ours beside: the first of the run's peers on a
/// current-thread runtime (tokio).
fn baseline<'a>(methods: &[&'a MethodSpec]) -> Option<&'a MethodSpec> {
    methods.iter().copied().find(|spec| {
        !spec.ours
            && spec
                .scale
                .is_some_and(|scale| scale.runtime == ScaleRuntime::CurrentThread)
    })
}

/// Lines that compare what the table shows: the executor's floor at each N; each of ours
/// against itself at the smallest N measured, and against the baseline (tokio) at the same
/// N.
fn comparisons(scale: &[ScaleResult], methods: &[&MethodSpec]) -> Vec<String> {
    let baseline = baseline(methods);
    let mut lines = Vec::new();
    let mut counts: Vec<u64> = scale.iter().map(|r| r.timers).collect();
    counts.dedup();
    for timers in counts {
        let floor = scale
            .iter()
            .filter(|r| r.timers == timers)
            .filter_map(|r| r.executor_floor_ns_per_task)
            .min();
        if let Some(floor_ns) = floor {
            let asked_per_ms = timers as f64 / SPREAD.as_secs_f64() / 1e3;
            lines.push(format!(
                "executor floor at {timers} timers: {} per task woken from another thread with no timer at all, so at most {:.0} tasks/ms; the deadlines ask for {asked_per_ms:.0}/ms on average",
                format_nanos(floor_ns as f64),
                1e6 / floor_ns.max(1) as f64,
            ));
        }
    }
    let mut ours: Vec<&str> = Vec::new();
    for r in scale.iter().filter(|r| r.ours) {
        if !ours.contains(&r.method.as_str()) {
            ours.push(&r.method);
        }
    }
    for method in ours {
        let rows: Vec<&ScaleResult> = scale.iter().filter(|r| r.method == method).collect();
        let Some(first) = rows.first() else { continue };
        let against_self: Vec<String> = rows[1..]
            .iter()
            .map(|r| {
                let ratio = r.lateness.p99_ns as f64 / first.lateness.p99_ns.max(1) as f64;
                format!("{ratio:.1}x at {}", r.timers)
            })
            .collect();
        if !against_self.is_empty() {
            lines.push(format!(
                "{method}: p99 against its own at {} timer(s): {}",
                first.timers,
                against_self.join(", ")
            ));
        }
        for r in &rows[1..] {
            if r.lateness.p99_ns > 2 * first.lateness.p99_ns.max(1) && r.stalls.stalls > 0 {
                lines.push(stalled(r));
            }
        }
        let Some(baseline) = baseline else { continue };
        let against_baseline: Vec<String> = rows
            .iter()
            .filter_map(|r| {
                let theirs = scale
                    .iter()
                    .find(|t| t.method == baseline.name && t.timers == r.timers)?;
                Some(format!(
                    "{} at {}",
                    share(r.lateness.p50_ns, theirs.lateness.p50_ns),
                    r.timers
                ))
            })
            .collect();
        if !against_baseline.is_empty() {
            lines.push(format!(
                "{method}: median against {}'s: {}",
                baseline.name,
                against_baseline.join(", ")
            ));
        }
    }
    lines
}

/// With rounds, each of ours against its peer at each N, from the rounds they shared: the
/// tokio method on the same runtime, or tokio.
fn paired(scale: &[ScaleResult], methods: &[&MethodSpec], settings: &Settings) -> Vec<String> {
    let runtime = |name: &str| runtime_of(methods, name);
    let baseline = baseline(methods).map(|spec| spec.name);
    let mut lines = Vec::new();
    for r in scale.iter().filter(|r| r.ours && !r.repeats.is_empty()) {
        let at_n = || scale.iter().filter(|p| p.timers == r.timers && !p.ours);
        let Some(peer) = at_n()
            .find(|p| runtime(&p.method) == runtime(&r.method))
            .or_else(|| at_n().find(|p| Some(p.method.as_str()) == baseline))
        else {
            continue;
        };
        let at = match r.timers {
            1 => "1 timer".to_string(),
            n => format!("{n} timers"),
        };
        let ratios = repeats::ratios(&r.repeats, &peer.repeats, settings);
        if !ratios.is_empty() {
            lines.push(format::comparison(&r.method, &peer.method, &at, &ratios));
        } else if r.repeats.len() != peer.repeats.len() {
            lines.push(unpaired(
                &r.method,
                &peer.method,
                &at,
                r.repeats.len(),
                peer.repeats.len(),
            ));
        }
    }
    lines
}

/// Why a pair of methods has no paired ratio: a ratio needs round `i` of both, and an
/// interrupted run can end with one method a round ahead of the other.
pub(crate) fn unpaired(
    ours: &str,
    peer: &str,
    at: &str,
    rounds: usize,
    peer_rounds: usize,
) -> String {
    format!(
        "{ours} vs {peer} at {at}: no paired ratio, as the two ran {rounds} and {peer_rounds} rounds (a ratio pairs round for round, and needs two)"
    )
}

/// Why a p99 may have grown with N: the stalls of the run, and whose they were.
fn stalled(r: &ScaleResult) -> String {
    let longest = r.stalls.longest_stall_ns;
    let per_ms = r.timers as f64 / SPREAD.as_secs_f64() / 1e3;
    let share = per_ms * longest as f64 / 1e6 / r.timers.max(1) as f64 * 100.0;
    let whose = match r.driver_fire_lateness_max_ns {
        Some(fired) if fired < longest / 4 => format!(
            "; the driver fired every timer within {} of its deadline, so the executor's thread was the one held up",
            format_nanos(fired as f64)
        ),
        Some(fired) => format!(
            "; the driver itself fired a timer {} late",
            format_nanos(fired as f64)
        ),
        None => String::new(),
    };
    format!(
        "{} at {} timers: {} stall(s) of {} or more with a timer overdue and none completing, the longest {}; at {per_ms:.0} timers/ms, {share:.1}% of a round's timers fall due in a stall that long{whose}",
        r.method,
        r.timers,
        r.stalls.stalls,
        format_nanos(stall::COUNTED_FROM_NS as f64),
        format_nanos(longest as f64),
    )
}

/// `ours` as a share of `theirs`: `1/40` when smaller, `1.5x` when larger.
fn share(ours: u64, theirs: u64) -> String {
    if ours <= theirs {
        format!("1/{:.0}", theirs as f64 / ours.max(1) as f64)
    } else {
        format!("{:.1}x", ours as f64 / theirs.max(1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_0_is_a_run_of_one_round_and_the_order_alternates() {
        assert_eq!(round_seed(42, 0), 42);
        assert_ne!(round_seed(42, 1), round_seed(42, 2));
        assert_eq!(round_order(3, 0), [0, 1, 2]);
        assert_eq!(round_order(3, 1), [2, 1, 0]);
        assert_eq!(round_order(3, 2), [0, 1, 2]);
    }
}
