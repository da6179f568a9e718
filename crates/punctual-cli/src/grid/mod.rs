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

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::Context;

use crate::cli::GridArgs;
use crate::environment::Environment;
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

pub fn command(args: &GridArgs) -> anyhow::Result<()> {
    let options = GridOptions::new(args, command_line())?;
    let json_to_stdout = options.json.as_deref() == Some(Path::new("-"));
    let results_only = options.quiet || json_to_stdout;
    // Opened now, so a path that cannot be written fails before the run, not after it.
    let json_file = match &options.json {
        Some(path) if !json_to_stdout => {
            Some(File::create(path).with_context(|| format!("creating {}", path.display()))?)
        }
        _ => None,
    };
    let session = Session::prepare(options)?;
    let header = header::render(
        &session.options,
        &session.environment,
        &session.scheduling(),
    );
    if results_only {
        eprint!("{header}");
    } else {
        print!("{header}");
        std::io::stdout().flush()?;
    }
    for warning in &session.warnings {
        eprintln!("warning: {warning}");
    }
    let printed = session.warnings.len();
    let report = session.run()?;
    if !json_to_stdout {
        let mut out = String::new();
        // cyclictest -q -h prints the histogram alone.
        if !(report.options.quiet && report.options.histogram_us.is_some()) {
            out.push_str(&summary::render(&report));
        }
        if report.options.histogram_us.is_some() {
            out.push_str(&histogram::render(&report));
        }
        print!("{out}");
    }
    let footer = header::footer(&report);
    if results_only {
        eprint!("{footer}");
    } else {
        print!("\n{footer}");
    }
    for warning in &report.warnings[printed..] {
        eprintln!("warning: {warning}");
    }
    if let Some(path) = &report.options.json {
        let bytes = json::render(&report)?;
        match json_file {
            Some(mut file) => file
                .write_all(&bytes)
                .with_context(|| format!("writing {}", path.display()))?,
            None => std::io::stdout().write_all(&bytes)?,
        }
    }
    Ok(())
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
