//! `punctual grid`: a cyclictest-class periodic latency test.
//!
//! Each measuring thread wakes on absolute deadlines `start + k * interval` with a
//! [`punctual::Ticker`] of the chosen strategy and records how late each wake-up was;
//! a wake-up too late for the next period skips it, and the skip is counted. Settings are
//! applied before anything is measured, and a refused one stops the run (exit code 1), as
//! cyclictest stops when its priority is refused: figures measured under other settings than
//! asked would be reported as if they were not.
//!
//! The output is cyclictest's (`T:` lines, `--histogram`, `--json` in the rt-tests layout),
//! with punctual's percentiles and missed periods on lines of their own.

mod checks;
mod contention;
mod header;
mod histogram;
mod json;
mod options;
mod session;
mod stats;
mod summary;
mod thread;

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use crate::cli::GridArgs;
use crate::environment::Environment;
use crate::output::file::Destination;
use crate::output::stdio;
use crate::sys::SystemInfo;
use options::GridOptions;
use session::Session;
use stats::ThreadStats;

/// One measuring thread's results.
#[derive(Debug, Clone)]
pub struct ThreadReport {
    pub index: usize,
    pub tid: u64,
    pub cpu: Option<usize>,
    pub scheduling: Option<String>,
    pub stats: ThreadStats,
}

/// Everything a run produced; the output formats read it.
#[derive(Debug, Clone)]
pub struct GridReport {
    pub options: GridOptions,
    pub environment: Environment,
    pub system: SystemInfo,
    pub threads: Vec<ThreadReport>,
    pub started: SystemTime,
    pub ended: SystemTime,
    pub wall: Duration,
    /// Share of the machine's CPU time other processes used during the run.
    pub other_load: Option<f64>,
    /// Whether Ctrl-C ended the run.
    pub interrupted: bool,
    pub warnings: Vec<String>,
}

/// Runs `punctual grid`; failures to write an output after the run are reported one by
/// one, and make the exit code 1.
pub fn command(args: &GridArgs) -> anyhow::Result<ExitCode> {
    let options = GridOptions::new(args, command_line())?;
    // Checked now, so a path that cannot be written fails before the run, not after it;
    // written only once the run is done, so a refused setting leaves the file as it was.
    let json = options
        .json
        .as_deref()
        .map(|path| Destination::check(path, ""))
        .transpose()?;
    let json_to_stdout = matches!(json, Some(Destination::Stdout));
    let results_only = options.quiet || json_to_stdout;
    let session = Session::prepare(options)?;
    let header = header::render(
        &session.options,
        &session.environment,
        &session.scheduling(),
    );
    if results_only {
        stdio::eprint(&header);
    } else {
        stdio::print(&header)?;
    }
    for warning in &session.warnings {
        stdio::eprint(&format!("warning: {warning}\n"));
    }
    let printed = session.warnings.len();
    let report = session.run()?;
    // Every output is attempted, each whatever became of the ones before.
    let mut code = ExitCode::SUCCESS;
    let mut outcome = |result: anyhow::Result<()>| {
        if let Err(error) = result {
            stdio::report(&error);
            code = ExitCode::FAILURE;
        }
    };
    if !json_to_stdout {
        let mut out = String::new();
        // cyclictest -q -h prints the histogram alone.
        if !(report.options.quiet && report.options.histogram_us.is_some()) {
            out.push_str(&summary::render(&report));
        }
        if report.options.histogram_us.is_some() {
            out.push_str(&histogram::render(&report));
        }
        outcome(stdio::print(&out));
    }
    let footer = header::footer(&report);
    if results_only {
        stdio::eprint(&footer);
    } else {
        outcome(stdio::print(&format!("\n{footer}")));
    }
    for warning in &report.warnings[printed..] {
        stdio::eprint(&format!("warning: {warning}\n"));
    }
    if let Some(json) = &json {
        outcome(json::render(&report).and_then(|bytes| json.write(&bytes)));
    }
    Ok(code)
}

/// `punctual` and the arguments as given, as cyclictest records its command line.
fn command_line() -> String {
    std::iter::once("punctual".to_string())
        .chain(
            std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned()),
        )
        .collect::<Vec<_>>()
        .join(" ")
}
