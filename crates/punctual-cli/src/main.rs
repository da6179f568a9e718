//! `punctual`: how late every way to wait wakes up, on this machine.

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

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use bench::scale::timers::{self as scale_timers, ScaleSpec};
use bench::scale::worker::WorkerArgs;
use bench::scale::ScaleOptions;
use bench::{BenchOptions, Report, Stop};
use cli::{BenchArgs, Cli, Command, MethodList};
use export::ExportFormat;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Bench(args) => bench_command(*args),
        Command::Probe(args) => probe::command(&args),
        Command::Grid(args) => grid::command(&args),
    }
}

fn bench_command(args: BenchArgs) -> anyhow::Result<()> {
    if args.list_methods {
        let wait_table = bench::method::METHODS
            .iter()
            .map(|spec| (spec.name, spec.about, spec.ours, ""));
        let scale_only = scale_timers::SCALE_METHODS
            .iter()
            .filter(|spec| spec.scale_only())
            .map(|spec| (spec.name, spec.about, spec.ours, " (--scale only)"));
        for (name, about, ours, only) in wait_table.chain(scale_only) {
            println!(
                "{name:<12} {about}{}{only}",
                if ours { " (ours)" } else { "" }
            );
        }
        return Ok(());
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_threads = args.load_threads.map_or(cpus, |n| n as usize);
    if args.frontier {
        return bench::frontier::command::command(&args, load_threads);
    }
    if let Some(threads) = args.threads {
        return bench::threads::command::command(&args, threads as usize, load_threads);
    }
    let report = match &args.scale {
        Some(timers) => {
            let methods = scale_methods(&args.methods).unwrap_or_else(|message| {
                Cli::command()
                    .error(clap::error::ErrorKind::ValueValidation, message)
                    .exit()
            });
            if let Some(method) = &args.scale_worker {
                return scale_worker(method, timers, &args);
            }
            bench::scale::run(&ScaleOptions {
                methods,
                timers: timers.clone(),
                samples: args.samples.unwrap_or(DEFAULT_SCALE_SAMPLES),
                rounds: args.rounds,
                load: args.load,
                load_threads,
                mock: args.mock_timer,
                export_timers: args.export_timers.clone(),
            })?
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
    output_report(&report, args)
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
    let result = bench::scale::worker::run(&WorkerArgs {
        method: spec.name,
        timers: *timers,
        samples: args.samples.unwrap_or(DEFAULT_SCALE_SAMPLES),
        rounds: args.rounds,
        seed: args.scale_seed,
        export_timers: args.export_timers.clone(),
    })?;
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

fn output_report(report: &Report, args: BenchArgs) -> anyhow::Result<()> {
    let exports: Vec<(ExportFormat, PathBuf)> = [
        (ExportFormat::Json, args.export_json),
        (ExportFormat::Csv, args.export_csv),
        (ExportFormat::Markdown, args.export_markdown),
    ]
    .into_iter()
    .filter_map(|(format, path)| path.map(|p| (format, p)))
    .collect();
    let table_to_stdout = !exports.iter().any(|(_, p)| p.as_os_str() == "-");
    if table_to_stdout {
        print!("{}", output::table::render(report));
    }
    export::write_all(&exports, report)?;
    if let Some(path) = &args.plot {
        output::plot::write(report, path)?;
        if table_to_stdout {
            println!("plot: {}", path.display());
        }
    }
    Ok(())
}
