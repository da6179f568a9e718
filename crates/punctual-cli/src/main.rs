//! `punctual`: how late every way to wait wakes up, on this machine.

// Platform code, and so `unsafe`, only in `sys` (its `allow` does nothing without this).
#![deny(unsafe_code)]

mod bench;
mod cli;
mod environment;
mod export;
mod grid;
mod output;
mod probe;
mod rng;
#[allow(unsafe_code)]
mod sys;
mod units;
mod usage;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use bench::scale::timers::{self as scale_timers, ScaleSpec};
use bench::scale::worker::WorkerArgs;
use bench::scale::ScaleOptions;
use bench::{BenchOptions, Stop};
use cli::{BenchArgs, Cli, Command, MethodList};
use output::destinations::Destinations;
use output::stdio;
use sys::Platform;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(error) => {
            stdio::report(&error);
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(usage) => return Ok(usage_exit(&usage)),
    };
    match cli.command {
        Command::Bench(args) => bench_command(*args),
        Command::Probe(args) => probe::command(&args).map(|()| ExitCode::SUCCESS),
        Command::Grid(args) => grid::command(&args),
    }
}

/// Prints clap's usage error, help or version, as `clap::Error::exit` would, but a full
/// standard output is an error here too.
fn usage_exit(usage: &clap::Error) -> ExitCode {
    let printed = usage.print().and_then(|()| std::io::stdout().flush());
    match printed {
        Err(e) if !usage.use_stderr() && e.kind() != std::io::ErrorKind::BrokenPipe => {
            stdio::report(&anyhow::Error::from(e).context("writing to standard output"));
            ExitCode::FAILURE
        }
        _ => ExitCode::from(u8::try_from(usage.exit_code()).unwrap_or(1)),
    }
}

/// A usage error for a combination clap's attributes do not catch: exit code 2.
fn usage_error(message: String) -> ! {
    Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, message)
        .exit()
}

/// `bench`'s exit code when Ctrl-C stopped it early, having printed and exported what it
/// measured: 128 + SIGINT, as a shell reports a process ended by it.
const STOPPED_BY_CTRL_C: u8 = 130;

fn bench_command(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if let Err(message) = usage::check_bench(&args) {
        usage_error(message);
    }
    if args.list_methods {
        let mut list = bench::method::listing();
        for spec in scale_timers::SCALE_METHODS
            .iter()
            .filter(|s| s.scale_only())
        {
            let ours = if spec.ours { " (ours)" } else { "" };
            list.push_str(&format!(
                "{:<16} {}{ours} (--scale only)\n",
                spec.name, spec.about
            ));
        }
        stdio::print(&list)?;
        return Ok(ExitCode::SUCCESS);
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_threads = args.load_threads.map_or(cpus, |n| n as usize);
    if args.frontier {
        return bench::frontier::command::command(&args, load_threads).map(|()| ExitCode::SUCCESS);
    }
    if let Some(threads) = args.threads {
        return bench::threads::command::command(&args, threads as usize, load_threads)
            .map(|()| ExitCode::SUCCESS);
    }
    let scale = match &args.scale {
        Some(timers) => {
            let methods = scale_methods(&args.methods).unwrap_or_else(|message| {
                Cli::command()
                    .error(clap::error::ErrorKind::ValueValidation, message)
                    .exit()
            });
            if let Some(method) = &args.scale_worker {
                return scale_worker(method, timers, &args).map(|()| ExitCode::SUCCESS);
            }
            Some((timers.clone(), methods))
        }
        None if !args.methods.scale_only.is_empty() => Cli::command()
            .error(
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "`{}` is measured only in the scale mode: add --scale N,...",
                    args.methods.scale_only.join("`, `")
                ),
            )
            .exit(),
        None => None,
    };
    // Before anything is measured: a path that cannot be written fails now.
    let destinations = Destinations::check(&args)?;
    catch_interrupt();
    let report = match scale {
        Some((timers, methods)) => bench::scale::run(&ScaleOptions {
            methods,
            timers,
            samples: args.samples.unwrap_or(DEFAULT_SCALE_SAMPLES),
            rounds: args.rounds.unwrap_or(1),
            load: args.load,
            load_threads,
            mock: args.mock_timer,
            export_timers: args.export_timers.clone(),
        })?,
        None => bench::run(&BenchOptions {
            methods: args.methods.specs.clone(),
            waits: args.waits.clone(),
            stop: args
                .samples
                .map_or(Stop::Duration(args.duration), Stop::Samples),
            warmup: args.warmup,
            mode: args.mode,
            phase: args.phase,
            load: args.load,
            load_threads,
            mock: args.mock_timer,
        })?,
    };
    if report.run.interrupted {
        stdio::eprint("punctual bench: stopped early by Ctrl-C; the results are what was measured until then\n");
    }
    let written = destinations.write(&report);
    Ok(if !written {
        ExitCode::FAILURE
    } else if report.run.interrupted {
        ExitCode::from(STOPPED_BY_CTRL_C)
    } else {
        ExitCode::SUCCESS
    })
}

/// Turns the first Ctrl-C into a stop at the end of the batch under way; says so when it
/// cannot.
fn catch_interrupt() {
    if !sys::Os::catch_interrupt() {
        stdio::eprint("warning: Ctrl-C cannot be caught here: it ends the run without results\n");
    }
}

/// Timers per method and N the scale mode measures at least, unless `--samples` says.
const DEFAULT_SCALE_SAMPLES: u64 = 100;

/// The scale mode's methods among those `--methods` named: all of its own for `all`.
fn scale_methods(list: &MethodList) -> Result<Vec<&'static ScaleSpec>, String> {
    if list.all {
        return Ok(scale_timers::SCALE_METHODS.iter().collect());
    }
    let mut methods = list
        .specs
        .iter()
        .map(|spec| spec.name)
        .chain(list.scale_only.iter().copied())
        .map(|name| {
            scale_timers::find(name).ok_or_else(|| {
                format!(
                    "`{name}` has no scale mode (with --scale: {}, or all)",
                    scale_timers::names()
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    methods.sort_by_key(|spec| {
        scale_timers::SCALE_METHODS
            .iter()
            .position(|m| m.name == spec.name)
    });
    Ok(methods)
}

/// The hidden worker side of the scale mode: one method at one N, as JSON on stdout.
fn scale_worker(method: &str, timers: &[u64], args: &BenchArgs) -> anyhow::Result<()> {
    let spec =
        scale_timers::find(method).ok_or_else(|| anyhow::anyhow!("no scale method `{method}`"))?;
    let [timers] = timers else {
        anyhow::bail!("a scale worker measures one N, not {timers:?}");
    };
    // The parent says when to stop (see `bench::scale::process`).
    bench::scale::process::stop_when_input_ends();
    let result = bench::scale::worker::run(&WorkerArgs {
        method: spec.name,
        timers: *timers,
        samples: args.samples.unwrap_or(DEFAULT_SCALE_SAMPLES),
        rounds: args.rounds.unwrap_or(1),
        seed: args.scale_seed,
        export_timers: args.export_timers.clone(),
    })?;
    stdio::print(&format!("{}\n", serde_json::to_string(&result)?))
}
