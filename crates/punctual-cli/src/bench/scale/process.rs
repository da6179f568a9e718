//! The scale mode's worker processes, from both ends: the parent starts one per method and
//! N (per method, for the server workload) and reads its result; the worker measures until
//! done, or until the parent, stopped by Ctrl-C, closes the worker's standard input.
//!
//! The workers are started beyond the console's Ctrl-C (`Platform::beyond_ctrl_c`), so that
//! a Ctrl-C cannot end one before the parent has its result: the parent alone is told,
//! and tells the worker, which ends at the end of its round.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

use anyhow::{anyhow, Context};
use serde::de::DeserializeOwned;

use super::server::run::ServerArgs;
use super::server::ServerResult;
use super::worker::WorkerArgs;
use super::ScaleResult;
use crate::sys::{self, Platform, INTERRUPTED};

/// How often the parent looks whether Ctrl-C asked it to stop, while a worker measures.
const CHECK_EVERY: Duration = Duration::from_millis(50);

/// Runs one method at one N of the fire workload in a fresh process of this binary
/// (`punctual scale N --fire-worker METHOD`, hidden).
pub fn fire(args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
    let mut argv: Vec<String> = [
        "scale",
        &args.timers.to_string(),
        "--fire-worker",
        args.method.name,
        "--samples",
        &args.samples.to_string(),
        "--rounds",
        &args.rounds.to_string(),
        "--fire-seed",
        &args.seed.to_string(),
    ]
    .map(String::from)
    .to_vec();
    if let Some(path) = &args.export_timers {
        argv.push("--export-timers".into());
        argv.push(path.to_string_lossy().into_owned());
    }
    let what = format!(
        "the scale worker for {} at {} timers",
        args.method.name, args.timers
    );
    run_worker(&argv, &what)
}

/// Runs one method under the server workload in a fresh process of this binary
/// (`punctual scale --workload server --server-worker METHOD`, hidden).
pub fn server(args: &ServerArgs) -> anyhow::Result<ServerResult> {
    let argv = [
        "scale".to_string(),
        "--workload".into(),
        "server".into(),
        "--server-worker".into(),
        args.method.name.into(),
        "--pending".into(),
        args.plan.pending.to_string(),
        "--churn".into(),
        args.plan.churn_per_s.to_string(),
        "--duration".into(),
        format!("{}ns", args.plan.duration.as_nanos()),
        "--workers".into(),
        args.workers.to_string(),
        "--server-seed".into(),
        args.seed.to_string(),
    ];
    run_worker(
        &argv,
        &format!("the server workload's worker for {}", args.method.name),
    )
}

/// Runs this binary with `argv` as a worker, beyond Ctrl-C, and reads the JSON result it
/// prints; `what` names it in errors.
pub fn run_worker<R: DeserializeOwned>(argv: &[String], what: &str) -> anyhow::Result<R> {
    let exe = std::env::current_exe().context("finding this program to run a worker")?;
    let mut command = Command::new(&exe);
    command
        .args(argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    sys::Os::beyond_ctrl_c(&mut command);
    let mut child = command
        .spawn()
        .with_context(|| format!("starting {what} ({})", exe.display()))?;
    let read_all = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read_all(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read_all(child.stderr.take().map(|p| Box::new(p) as _));
    let mut stdin = child.stdin.take();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .with_context(|| format!("waiting for {what}"))?
        {
            break status;
        }
        if stdin.is_some() && INTERRUPTED.load(Ordering::Relaxed) {
            // End of input: the worker's signal to stop after its round.
            drop(stdin.take());
        }
        thread::sleep(CHECK_EVERY);
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() {
        return Err(anyhow!(
            "{what} failed ({status}): {}",
            String::from_utf8_lossy(&stderr).trim()
        ));
    }
    serde_json::from_slice(&stdout).with_context(|| format!("reading the result of {what}"))
}

/// The worker's side: once its standard input ends (the parent closed it, or is gone),
/// [`INTERRUPTED`] is set, and the rounds stop after the one under way.
pub fn stop_when_input_ends() {
    let watch = thread::Builder::new().name("scale-stop".into()).spawn(|| {
        let mut byte = [0u8; 1];
        let _ = std::io::stdin().lock().read(&mut byte);
        INTERRUPTED.store(true, Ordering::Relaxed);
    });
    // Without the thread the worker cannot be stopped early, but it still measures.
    drop(watch);
}
