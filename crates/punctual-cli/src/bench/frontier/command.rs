//! `punctual bench --frontier` from the command line to its outputs. Every output is checked
//! before anything is measured, so a path that cannot be written costs no run, and each is
//! written after it whatever became of the others (see `output::file`).

use super::{plot, run, table, FrontierOptions};
use crate::cli::BenchArgs;
use crate::output::file::{gather_listed, Destination, OutputFile};
use crate::output::stdio;

/// Runs the frontier and writes its outputs; `false` when an output could not be written
/// (each failure reported).
pub fn command(args: &BenchArgs, load_threads: usize) -> anyhow::Result<bool> {
    let options = FrontierOptions {
        waits: args.waits.clone(),
        samples: args.samples,
        warmup: args.warmup,
        phase: args.phase,
        load: args.load,
        load_threads,
        mock: args.mock_timer,
    };
    let json = args
        .export_json
        .as_deref()
        .map(|path| Destination::check(path, ""))
        .transpose()?;
    let svg = args
        .plot
        .as_deref()
        .map(|path| Destination::check(path, "the plot to "))
        .transpose()?;
    let page = args
        .report
        .as_deref()
        .map(|path| OutputFile::check(path, "the report to "))
        .transpose()?;
    let table_to_stdout = !matches!(json, Some(Destination::Stdout));
    let report = run(&options)?;
    let mut out = String::new();
    if table_to_stdout {
        out.push_str(&table::render(&report));
    }
    let mut failed = Vec::new();
    if let Some(json) = json {
        let bytes = crate::export::json::export_bytes(&report)?;
        failed.extend(json.write(&bytes).err());
    }
    let listed = [
        svg.map(|svg| svg.write_listed(plot::render(&report), "plot")),
        page.map(|page| page.write_listed(crate::report::run_page(&report), "report")),
    ];
    gather_listed(listed, table_to_stdout, &mut out, &mut failed);
    failed.extend(stdio::print(&out).err());
    for error in &failed {
        stdio::report(error);
    }
    Ok(failed.is_empty())
}
