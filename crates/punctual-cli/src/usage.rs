//! Combinations of options that clap's attributes do not catch: an option the run would
//! ignore, or two outputs that would spoil each other. Each is a usage error (exit code 2)
//! that says what to change.
//!
//! clap's `requires` is not enough here: it takes a default value as given (`--load none`
//! satisfies `--load-threads`' need of `--load`), and it lets `--rounds` through without
//! `--scale` when an option `--scale` conflicts with (`--wait`) is given too.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::bench::load::LoadKind;
use crate::bench::session::Outputs;
use crate::cli::{BenchArgs, Cli, RunArgs};

/// A usage error for a combination clap's attributes do not catch: exit code 2.
pub fn error(kind: clap::error::ErrorKind, message: String) -> ! {
    Cli::command().error(kind, message).exit()
}

/// What is wrong with the flags only `punctual bench` has, if anything.
pub fn check_bench(args: &BenchArgs) -> Result<(), String> {
    if args.repeat > 1 {
        let instead = if args.frontier {
            Some(("--frontier", "punctual frontier --repeat K"))
        } else if args.threads.is_some() {
            Some(("--threads N", "punctual threads N --repeat K"))
        } else if args.scale.is_some() {
            Some(("--scale N,...", "punctual scale N,... --repeat K"))
        } else {
            None
        };
        if let Some((flag, command)) = instead {
            return Err(format!(
                "--repeat cannot be used with the deprecated {flag}, which always runs one round: use `{command}`"
            ));
        }
    }
    if args.scale.is_none() {
        if args.rounds.is_some() {
            return Err("--rounds needs --scale N,... (better: `punctual scale N,... --rounds`): only the scale mode has rounds".into());
        }
        if args.export_timers.is_some() {
            return Err(
                "--export-timers needs --scale N,...: only the scale mode has timers' rows".into(),
            );
        }
    }
    Ok(())
}

/// Exits with a usage error when the settings every mode shares, or the outputs, do not go
/// together (`timers`: the scale mode's `--export-timers`).
pub fn check_run(run: &RunArgs, outputs: Outputs, timers: Option<&Path>) {
    if let Err(message) = run_problem(run, outputs, timers) {
        error(clap::error::ErrorKind::ArgumentConflict, message);
    }
}

fn run_problem(run: &RunArgs, outputs: Outputs, timers: Option<&Path>) -> Result<(), String> {
    if run.load_threads.is_some() && run.load == LoadKind::None {
        return Err(
            "--load-threads needs --load lower, same or higher: without a load there are no load threads"
                .to_string(),
        );
    }
    let named = [
        ("--export-json", outputs.json),
        ("--export-csv", outputs.csv),
        ("--export-markdown", outputs.markdown),
        ("--plot", outputs.plot),
        ("--report", outputs.page),
        ("--export-timers", timers),
    ];
    let given: Vec<(&str, &Path)> = named
        .iter()
        .filter_map(|(flag, path)| path.map(|p| (*flag, p)))
        .collect();
    for (i, (first, a)) in given.iter().enumerate() {
        for (second, b) in &given[i + 1..] {
            if is_stdout(a) && is_stdout(b) {
                return Err(format!(
                    "{first} and {second} both write to standard output, where one would run into the other: give one of them a file"
                ));
            }
            if !is_stdout(a) && !is_stdout(b) && same_file(a, b) {
                return Err(format!(
                    "{first} and {second} both write to {}, where one would replace the other: give each a file of its own",
                    a.display()
                ));
            }
        }
    }
    Ok(())
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `a` and `b` name one file, whether or not it exists yet: `r.svg` and `./r.svg`
/// do, and so do two names of one directory.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || resolved(a).is_some_and(|a| resolved(b).is_some_and(|b| a == b))
}

/// The file's canonical directory and its name; a link to a file resolved too.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(file) = std::fs::canonicalize(path) {
        return Some(file);
    }
    let name = path.file_name()?;
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(directory).ok()?.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_one_file_are_the_same_file() {
        assert!(same_file(Path::new("r.svg"), Path::new("./r.svg")));
        assert!(same_file(
            Path::new("no-such-dir/r.svg"),
            Path::new("no-such-dir/r.svg")
        ));
        assert!(!same_file(Path::new("a.csv"), Path::new("b.csv")));
        assert!(!same_file(Path::new("a/r.csv"), Path::new("b/r.csv")));
    }
}
