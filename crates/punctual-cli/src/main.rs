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

use clap::Parser;

use bench::{BenchOptions, Stop};
use cli::{BenchArgs, Cli, Command};
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
        Command::Bench(args) => bench_command(args),
        Command::Probe(args) => probe::command(&args),
        Command::Grid(args) => grid::command(&args),
    }
}

fn bench_command(args: BenchArgs) -> anyhow::Result<()> {
    if args.list_methods {
        for spec in bench::method::METHODS {
            println!(
                "{:<12} {}{}",
                spec.name,
                spec.about,
                if spec.ours { " (ours)" } else { "" }
            );
        }
        return Ok(());
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let options = BenchOptions {
        methods: args.methods,
        waits: args.waits,
        stop: args
            .samples
            .map_or(Stop::Duration(args.duration), Stop::Samples),
        warmup: args.warmup,
        mode: args.mode,
        phase: args.phase,
        load: args.load,
        load_threads: args.load_threads.map_or(cpus, |n| n as usize),
        mock: args.mock_timer,
    };
    let report = bench::run(&options)?;
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
        print!("{}", output::table::render(&report));
    }
    export::write_all(&exports, &report)?;
    if let Some(path) = &args.plot {
        output::plot::write(&report, path)?;
        if table_to_stdout {
            println!("plot: {}", path.display());
        }
    }
    Ok(())
}
