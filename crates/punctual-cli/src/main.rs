//! `punctual`: how late every way to wait wakes up, on this machine.

// Platform code, and so `unsafe`, only in `sys` (its `allow` does nothing without this).
#![deny(unsafe_code)]

mod bench;
mod cli;
mod environment;
mod export;
mod grid;
mod intervals;
mod markup;
mod output;
mod plot;
mod probe;
mod report;
mod rng;
#[allow(unsafe_code)]
mod sys;
mod units;
mod usage;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};
use output::stdio;

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
    // The command line that made the run, for its exports: the program as `punctual` (its
    // path says nothing about the run).
    let command: Vec<String> = std::iter::once("punctual".to_string())
        .chain(
            std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned()),
        )
        .collect();
    match cli.command {
        Command::Bench(args) => bench::command::command(*args, &command),
        Command::Frontier(args) => bench::frontier::command::command(&args, &command),
        Command::Threads(args) => bench::threads::command::command(&args, &command),
        Command::Scale(args) => bench::scale::command::command(&args, &command),
        Command::Probe(args) => probe::command(&args).map(|()| ExitCode::SUCCESS),
        Command::Grid(args) => grid::command(&args),
        Command::Report(args) => report::command::command(&args).map(|()| ExitCode::SUCCESS),
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
