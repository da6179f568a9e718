//! `punctual bench --threads` from the command line to its outputs.

use super::{run, table, ThreadsOptions, DEFAULT_METHODS, DEFAULT_RANGE};
use crate::bench::sink::Sink;
use crate::cli::BenchArgs;

pub fn command(args: &BenchArgs, threads: usize, load_threads: usize) -> anyhow::Result<()> {
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
    let json = args.export_json.as_deref().map(Sink::open).transpose()?;
    let table_to_stdout = !matches!(json, Some(Sink::Stdout));
    let report = run(&options)?;
    if let Some(json) = json {
        let mut bytes = serde_json::to_vec_pretty(&report)?;
        bytes.push(b'\n');
        json.write(&bytes)?;
    }
    if table_to_stdout {
        Sink::Stdout.write(table::render(&report).as_bytes())?;
    }
    Ok(())
}
