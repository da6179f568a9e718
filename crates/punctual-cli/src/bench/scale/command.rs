//! The scale mode's part of `punctual bench`'s dispatch: which methods `--methods` gave it,
//! and the hidden worker side (`--scale-worker`).

use super::process;
use super::worker::{self, WorkerArgs};
use crate::bench::method::{self, MethodSpec};
use crate::cli::{BenchArgs, MethodList};
use crate::output::stdio;

/// Timers per method and N the scale mode measures at least, unless `--samples` says.
pub const DEFAULT_SAMPLES: u64 = 100;

/// The scale mode's methods among those `--methods` named, in table order: for `all`, those
/// on a current-thread runtime.
pub fn methods(list: &MethodList) -> Result<Vec<&'static MethodSpec>, String> {
    if list.all {
        return Ok(method::default_scale_methods().collect());
    }
    let mut methods = list
        .specs
        .iter()
        .chain(&list.scale_only)
        .map(|&spec| {
            spec.scale.is_some().then_some(spec).ok_or_else(|| {
                format!(
                    "`{}` has no scale mode (with --scale: {}, or all)",
                    spec.name,
                    method::scale_names()
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    methods.sort_by_key(|spec| method::position(spec));
    Ok(methods)
}

/// The hidden worker side of the scale mode: one method at one N, as JSON on stdout.
pub fn worker(method: &str, timers: &[u64], args: &BenchArgs) -> anyhow::Result<()> {
    let spec = method::find(method)
        .filter(|spec| spec.scale.is_some())
        .ok_or_else(|| anyhow::anyhow!("no scale method `{method}`"))?;
    let [timers] = timers else {
        anyhow::bail!("a scale worker measures one N, not {timers:?}");
    };
    // The parent says when to stop (see `bench::scale::process`).
    process::stop_when_input_ends();
    let result = worker::run(&WorkerArgs {
        method: spec,
        timers: *timers,
        samples: args.samples.unwrap_or(DEFAULT_SAMPLES),
        rounds: args.rounds.unwrap_or(1),
        seed: args.scale_seed,
        export_timers: args.export_timers.clone(),
    })?;
    stdio::print(&format!("{}\n", serde_json::to_string(&result)?))
}
