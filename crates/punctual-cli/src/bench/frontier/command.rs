//! `punctual bench --frontier` from the command line to its outputs. Every output file is
//! opened before anything is measured, so a path that cannot be written costs no run.

use super::{plot, run, table, FrontierOptions};
use crate::bench::sink::Sink;
use crate::cli::BenchArgs;
use crate::output::file::OutputFile;

pub fn command(args: &BenchArgs, load_threads: usize) -> anyhow::Result<()> {
    let options = FrontierOptions {
        waits: args.waits.clone(),
        samples: args.samples,
        warmup: args.warmup,
        phase: args.phase,
        load: args.load,
        load_threads,
        mock: args.mock_timer,
    };
    let json = args.export_json.as_deref().map(Sink::open).transpose()?;
    let svg = args.plot.as_deref().map(Sink::open).transpose()?;
    let page = args
        .report
        .as_deref()
        .map(|path| OutputFile::check(path, "the report to "))
        .transpose()?;
    let table_to_stdout = !matches!(json, Some(Sink::Stdout));
    let report = run(&options)?;
    let mut out = String::new();
    if table_to_stdout {
        out.push_str(&table::render(&report));
    }
    if let Some(json) = json {
        let mut value = serde_json::to_value(&report)?;
        crate::export::json::with_command(&mut value);
        let mut bytes = serde_json::to_vec_pretty(&value)?;
        bytes.push(b'\n');
        json.write(&bytes)?;
    }
    if let Some(svg) = svg {
        svg.write(plot::render(&report)?.as_bytes())?;
        if table_to_stdout {
            if let Some(path) = &args.plot {
                out.push_str(&format!("plot: {}\n", path.display()));
            }
        }
    }
    if let Some(page) = page {
        page.write(crate::report::frontier_page(&report)?.as_bytes())?;
        if table_to_stdout {
            out.push_str(&format!("report: {}\n", page.path().display()));
        }
    }
    Sink::Stdout.write(out.as_bytes())
}
