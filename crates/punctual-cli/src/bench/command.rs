//! `punctual bench` from the command line to its outputs: the usage checks clap cannot
//! make, `--list-methods`, the dispatch to a mode, the destinations checked before anything
//! is measured, Ctrl-C, and the exit code.

use std::process::ExitCode;

use clap::CommandFactory;

use super::method::{self, MethodSpec};
use super::scale::{self, ScaleOptions};
use super::{frontier, threads, BenchOptions, Stop};
use crate::cli::{BenchArgs, Cli};
use crate::output::destinations::Destinations;
use crate::output::stdio;
use crate::sys::{self, Platform};
use crate::usage;

/// `bench`'s exit code when Ctrl-C stopped it early, having printed and exported what it
/// measured: 128 + SIGINT, as a shell reports a process ended by it.
const STOPPED_BY_CTRL_C: u8 = 130;

pub fn command(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if let Err(message) = usage::check_bench(&args) {
        usage_error(clap::error::ErrorKind::ArgumentConflict, message);
    }
    if args.list_methods {
        stdio::print(&method::listing())?;
        return Ok(ExitCode::SUCCESS);
    }
    // Held for the whole run, whatever its mode; a scale worker's parent holds it for it.
    let _dma_latency = match args.dma_latency {
        Some(us) if !args.mock_timer && args.scale_worker.is_none() => {
            Some(crate::environment::hold_dma_latency(us)?)
        }
        _ => None,
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_threads = args.load_threads.map_or(cpus, |n| n as usize);
    if args.frontier {
        return frontier::command::command(&args, load_threads).map(written);
    }
    if let Some(threads) = args.threads {
        return threads::command::command(&args, threads as usize, load_threads).map(written);
    }
    let scale = match &args.scale {
        Some(timers) => {
            let methods = scale::command::methods(&args.methods).unwrap_or_else(|message| {
                usage_error(clap::error::ErrorKind::ValueValidation, message)
            });
            if let Some(method) = &args.scale_worker {
                return scale::command::worker(method, timers, &args).map(|()| ExitCode::SUCCESS);
            }
            Some((timers.clone(), methods))
        }
        None if !args.methods.scale_only.is_empty() => usage_error(
            clap::error::ErrorKind::ValueValidation,
            format!(
                "`{}` is measured only in the scale mode: add --scale N,...",
                names(&args.methods.scale_only).join("`, `")
            ),
        ),
        None => None,
    };
    // Before anything is measured: a path that cannot be written fails now.
    let destinations = Destinations::check(&args)?;
    catch_interrupt();
    let report = match scale {
        Some((timers, methods)) => scale::run(&ScaleOptions {
            methods,
            timers,
            samples: args.samples.unwrap_or(scale::command::DEFAULT_SAMPLES),
            rounds: args.rounds.unwrap_or(1),
            load: args.load,
            load_threads,
            mock: args.mock_timer,
            export_timers: args.export_timers.clone(),
        })?,
        None => super::run(&BenchOptions {
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

/// A usage error for a combination clap's attributes do not catch: exit code 2.
/// 0 when every output was written, 1 when one could not be.
fn written(all: bool) -> ExitCode {
    if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn usage_error(kind: clap::error::ErrorKind, message: String) -> ! {
    Cli::command().error(kind, message).exit()
}

fn names(specs: &[&MethodSpec]) -> Vec<&'static str> {
    specs.iter().map(|spec| spec.name).collect()
}

/// Turns the first Ctrl-C into a stop at the end of the batch under way; says so when it
/// cannot.
fn catch_interrupt() {
    if !sys::Os::catch_interrupt() {
        stdio::eprint("warning: Ctrl-C cannot be caught here: it ends the run without results\n");
    }
}
