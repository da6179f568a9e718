//! `punctual bench --threads` from the command line to its outputs: the table, the JSON
//! export and the page, each checked before anything is measured.

use clap::CommandFactory;

use super::{run, table, ThreadsOptions, DEFAULT_METHODS, DEFAULT_RANGE};
use crate::cli::{BenchArgs, Cli};
use crate::output::file::{gather_listed, Destination, OutputFile};
use crate::output::stdio;

/// Runs the threads mode and writes its outputs; `false` when an output could not be written
/// (each failure reported).
pub fn command(args: &BenchArgs, threads: usize, load_threads: usize) -> anyhow::Result<bool> {
    if !args.methods.scale_only.is_empty() {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "`{}` is measured only in the scale mode, not with --threads",
                    args.methods
                        .scale_only
                        .iter()
                        .map(|spec| spec.name)
                        .collect::<Vec<_>>()
                        .join("`, `")
                ),
            )
            .exit();
    }
    let methods = if args.methods.all {
        DEFAULT_METHODS.to_vec()
    } else {
        args.methods.specs.clone()
    };
    let options = ThreadsOptions {
        methods,
        threads,
        range: args.wait_range.unwrap_or(DEFAULT_RANGE),
        duration: args.duration,
        load: args.load,
        load_threads,
        mock: args.mock_timer,
    };
    let json = args
        .export_json
        .as_deref()
        .map(|path| Destination::check(path, ""))
        .transpose()?;
    let page = args
        .report
        .as_deref()
        .map(|path| OutputFile::check(path, "the report to "))
        .transpose()?;
    let table_to_stdout = !matches!(json, Some(Destination::Stdout));
    let report = run(&options)?;
    let mut failed = Vec::new();
    if let Some(json) = json {
        let bytes = crate::export::json::export_bytes(&report)?;
        failed.extend(json.write(&bytes).err());
    }
    let mut out = String::new();
    if table_to_stdout {
        out.push_str(&table::render(&report));
    }
    let listed = [page.map(|page| page.write_listed(crate::report::run_page(&report), "report"))];
    gather_listed(listed, table_to_stdout, &mut out, &mut failed);
    failed.extend(stdio::print(&out).err());
    for error in &failed {
        stdio::report(error);
    }
    Ok(failed.is_empty())
}
