//! `punctual bench` end to end, with the mock timer so every run prints the same thing.

use assert_cmd::assert::OutputAssertExt;
use predicates::prelude::*;

mod common;
use common::{
    assert_every_row_has, assert_fails_before_measuring, assert_usage_error, punctual, run,
    stdout_of, TempDir,
};
use punctual_test_support::privilege;

fn mock_bench(extra: &[&str]) -> String {
    stdout_of(&[&common::pages::MOCK_BENCH[..], extra].concat())
}

#[test]
fn table() {
    insta::assert_snapshot!("bench_table", mock_bench(&[]));
}

#[test]
fn grid_mode_and_scrambled_phase_table() {
    insta::assert_snapshot!(
        "bench_table_grid_scrambled",
        mock_bench(&[
            "--mode",
            "grid",
            "--phase",
            "scrambled",
            "--methods",
            "hybrid,std,native"
        ])
    );
}

#[test]
fn json_export() {
    insta::assert_snapshot!("bench_json", mock_bench(&["--export-json", "-"]));
}

#[test]
fn csv_export() {
    insta::assert_snapshot!("bench_csv", mock_bench(&["--export-csv", "-"]));
}

#[test]
fn markdown_export() {
    insta::assert_snapshot!("bench_markdown", mock_bench(&["--export-markdown", "-"]));
}

#[test]
fn json_has_the_documented_fields() {
    let json: serde_json::Value =
        serde_json::from_str(&mock_bench(&["--export-json", "-"])).unwrap();
    assert!(json["environment"].is_object());
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2 * 9, "every method at both waits");
    assert_every_row_has(
        results,
        &[
            "method",
            "wait_ns",
            "mode",
            "samples",
            "min_ns",
            "mean_ns",
            "p50_ns",
            "p90_ns",
            "p99_ns",
            "p999_ns",
            "max_ns",
            "early",
            "cpu_ns_per_wait",
        ],
    );
    assert!(results.iter().all(|r| r["samples"] == 300));
    // One ruler: every row's lateness is the caller's; the sleeper's own reading, where a
    // method takes one, is a field of its own and never later than the caller's.
    for r in results {
        let own = &r["self_reported_p50_ns"];
        match r["method"].as_str().unwrap() {
            "native" | "hybrid" | "spin" => {
                assert!(
                    own.as_u64().unwrap() <= r["p50_ns"].as_u64().unwrap(),
                    "{r}"
                )
            }
            _ => assert!(own.is_null(), "{r}"),
        }
    }
}

#[test]
fn exports_to_files_and_a_plot() {
    let dir = TempDir::new("bench-exports");
    let dir = &dir.0;
    let (json, csv, md, svg) = (
        dir.join("r.json"),
        dir.join("r.csv"),
        dir.join("r.md"),
        dir.join("r.svg"),
    );
    let stdout = mock_bench(&[
        "--export-json",
        json.to_str().unwrap(),
        "--export-csv",
        csv.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(
        stdout.contains("Recommendation:"),
        "the table still goes to stdout"
    );
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg"));
    for label in [
        "wait 100us",
        "wait 1ms",
        "hybrid *",
        "spin_sleep",
        "tokio",
        "async-io",
    ] {
        assert!(plot.contains(label), "the plot shows `{label}`");
    }
    assert!(std::fs::read_to_string(&csv).unwrap().lines().count() == 19);
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("| **hybrid** |"));
    assert!(
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&json).unwrap()).is_ok()
    );
}

#[test]
fn methods_can_be_chosen_and_listed() {
    let table = mock_bench(&["--methods", "std,hybrid"]);
    assert!(table.contains("hybrid *") && table.contains("std "));
    assert!(!table.contains("tokio"));
    run(punctual().args(["bench", "--list-methods"]))
        .assert()
        .success()
        .stdout(predicate::str::contains("spin_sleep").and(predicate::str::contains("(ours)")));
}

/// Bad input is a usage error: exit code 2, a message saying what is wrong, no panic.
#[test]
fn bad_arguments_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--wait", "0"], "no unit"),
        (&["--wait", "0ms"], "zero"),
        (&["--wait", "-1ms"], "negative"),
        (&["--wait", "abc"], "not a duration"),
        (&["--wait", "1ms,xyz"], "`xyz` is not a duration"),
        (&["--wait", "99999999h"], "not a unit"),
        (&["--wait", "100000s"], "too long"),
        (&["--methods", "sleepy"], "unknown method `sleepy`"),
        (&["--samples", "0"], "0 is not in 1..=100000000"),
        (&["--samples", "99999999999999999999999"], "invalid"),
        (
            &["--samples", "10", "--duration", "1s"],
            "cannot be used with",
        ),
        (&["--duration", "0s"], "zero"),
        (&["--duration", "-2s"], "negative"),
        (&["--samples", "-5"], "invalid digit"),
        (&["--plot", "out.png"], "ending in .svg"),
        (&["--load", "extreme"], "invalid value 'extreme'"),
        (&["--load-threads", "0"], "0 is not in 1..=1024"),
        (&["--mode", "wavy"], "invalid value 'wavy'"),
    ];
    for (args, message) in cases {
        assert_usage_error(&[&["bench"][..], args].concat(), message);
    }
}

#[test]
fn an_unwritable_export_is_an_error_not_a_panic() {
    run(punctual().args([
        "bench",
        "--mock-timer",
        "--samples",
        "10",
        "--export-json",
        "/nonexistent-dir/r.json",
    ]))
    .assert()
    .code(1)
    .stderr(
        predicate::str::contains("writing /nonexistent-dir/r.json")
            .and(predicate::str::contains("panicked").not()),
    );
}

/// A short mock run of the hybrid method alone.
const QUICK_HYBRID: [&str; 8] = [
    "bench",
    "--mock-timer",
    "--samples",
    "20",
    "--wait",
    "1ms",
    "--methods",
    "hybrid",
];

/// Load threads start, report their priority, and stop with the run (a real run: the mock
/// timer only replaces the methods and clocks, not the load).
#[test]
fn load_threads_run_and_report_their_priority() {
    for (load, expect) in [
        ("lower", "load threads run at"),
        ("same", "load threads run at"),
        ("higher", "load threads run at"),
    ] {
        let output = run(punctual()
            .args(QUICK_HYBRID)
            .args(["--load", load, "--load-threads", "2"])
            .timeout(std::time::Duration::from_secs(60)));
        assert!(
            output.status.success(),
            "--load {load}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let table = String::from_utf8(output.stdout).unwrap();
        assert!(
            table.contains(&format!("2 load threads at {load} priority")),
            "{table}"
        );
        assert!(table.contains(expect), "{table}");
    }
}

/// Runs the binary with `args` as `nobody` for real (Linux with setpriv, as root), checks
/// that it succeeded and returns what it printed; `None` elsewhere, having said why (a
/// failure without root when privileges are required).
fn as_nobody(test: &str, args: &[&str]) -> Option<String> {
    let output = unprivileged_output(test, "nobody", &[], args)?;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

/// Runs the binary with `args` as `user` (a name, or a number), with no capabilities and
/// under `prlimit` with `limits`, and returns its output; `None` where that cannot be done,
/// having said why.
fn unprivileged_output(
    test: &str,
    user: &str,
    limits: &[&str],
    args: &[&str],
) -> Option<std::process::Output> {
    let bin = assert_cmd::cargo::cargo_bin("punctual");
    let setpriv = std::path::Path::new("/usr/bin/setpriv");
    if !cfg!(target_os = "linux") || !setpriv.exists() {
        privilege::skip_unavailable(test, "needs Linux and /usr/bin/setpriv to drop privileges");
        return None;
    }
    if !privilege::is_root() {
        privilege::skip_unprivileged(test, "needs root to drop privileges");
        return None;
    }
    // The build tree may sit under a directory nobody cannot enter (/root is 0700).
    let dir = TempDir::new("nobody");
    let copy = dir.0.join("punctual");
    std::fs::copy(&bin, &copy).unwrap();
    let status = std::process::Command::new("chmod")
        .args(["-R", "a+rx"])
        .arg(&dir.0)
        .status()
        .unwrap();
    assert!(status.success());
    // The copy's write descriptor, closed here, may still be open in a child another test
    // thread has forked and not yet exec'd; setpriv's exec of the copy then fails with
    // ETXTBSY ("Text file busy") until that child execs. Such a run is tried again.
    let run = || {
        let mut command = std::process::Command::new("prlimit");
        command.args(limits).arg(setpriv);
        command
            .arg(format!("--reuid={user}"))
            .args(["--regid=nogroup", "--clear-groups", "--inh-caps=-all"])
            .arg(&copy)
            .args(args)
            .output()
            .unwrap()
    };
    let mut output = run();
    for _ in 0..20 {
        if !String::from_utf8_lossy(&output.stderr).contains("Text file busy") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        output = run();
    }
    drop(dir);
    Some(output)
}

/// `--dma-latency` holds the request for the run and names it in the header and the JSON
/// export, or stops the run with the library's reason before anything is measured (on
/// Windows and macOS: not available).
#[test]
fn the_dma_latency_request_is_held_and_named_or_the_run_stops() {
    let args = [
        "bench",
        "--methods",
        "native",
        "--wait",
        "200us",
        "--samples",
        "20",
        "--warmup",
        "0",
        "--dma-latency",
        "0",
        "--export-json",
        "-",
    ];
    let output = run(punctual().args(args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["environment"]["dma_latency_us"], 0, "{json}");
        let table = stdout_of(&args[..args.len() - 2]);
        assert!(
            table.contains("/dev/cpu_dma_latency held at 0 us by this run"),
            "{table}"
        );
    } else {
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("holding /dev/cpu_dma_latency (--dma-latency)"),
            "{stderr}"
        );
        assert!(stderr.contains("not available on"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// Refused the request (as `nobody`, who cannot open `/dev/cpu_dma_latency`), the run stops
/// with the reason before anything is measured.
#[test]
fn a_refused_dma_latency_request_stops_the_run() {
    let Some(output) = unprivileged_output(
        "a_refused_dma_latency_request_stops_the_run",
        "nobody",
        &[],
        &[
            "bench",
            "--methods",
            "native",
            "--samples",
            "20",
            "--dma-latency",
            "0",
        ],
    ) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("holding /dev/cpu_dma_latency (--dma-latency)"),
        "{stderr}"
    );
    assert!(stderr.contains("permission denied"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing measured");
}

/// Load threads the OS refuses (here a user allowed one process, and so no thread) are an
/// error that says which and why, not a panic. The user is a number no one else runs as, so
/// no other process of its counts against the limit (`nobody`'s may, in other tests).
#[test]
fn load_threads_refused_by_a_process_limit_are_a_clear_error() {
    let args = [
        "bench",
        "--methods",
        "native",
        "--samples",
        "20",
        "--wait",
        "100us",
        "--load",
        "same",
        "--load-threads",
        "2",
    ];
    let test = "load_threads_refused_by_a_process_limit_are_a_clear_error";
    let user = (2_000_000_000 + std::process::id()).to_string();
    let Some(output) = unprivileged_output(test, &user, &["--nproc=1:1"], &args) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: starting load thread 1 of 2") && stderr.contains("ulimit -u"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--load higher` needs privileges; refused, it is a note in the report, not a failure.
#[test]
fn a_refused_load_priority_is_reported_not_fatal() {
    let args = [
        &QUICK_HYBRID[..],
        &["--load", "higher", "--load-threads", "1"],
    ]
    .concat();
    let Some(table) = as_nobody("a_refused_load_priority_is_reported_not_fatal", &args) else {
        return;
    };
    assert!(
        table.contains(
            "note: load threads run at the default priority: setpriority(nice -10) refused"
        ) && table.contains("CAP_SYS_NICE"),
        "{table}"
    );
}

const QUICK_RT_SCALE: &[&str] = &[
    "bench",
    "--scale",
    "50",
    "--samples",
    "50",
    "--methods",
    "async-rt",
];

/// `async-rt` runs its executor and driver threads at SCHED_FIFO where that is allowed
/// (here, as root on Linux), and says so.
#[test]
fn async_rt_says_what_scheduling_it_ran_at() {
    let test = "async_rt_says_what_scheduling_it_ran_at";
    if !cfg!(target_os = "linux") {
        privilege::skip_unavailable(test, "SCHED_FIFO is Linux's");
        return;
    }
    if !privilege::is_root() {
        privilege::skip_unprivileged(test, "needs root to be granted SCHED_FIFO");
        return;
    }
    let output = run(punctual().args(QUICK_RT_SCALE));
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(
        table
            .contains("note: async-rt: executor thread SCHED_FIFO 10 while the deadlines run, driver thread SCHED_FIFO 10"),
        "{table}"
    );
}

/// Refused real-time scheduling is a note naming the fixes, and the row is still measured.
#[test]
fn a_refused_async_rt_priority_is_reported_not_fatal() {
    let Some(table) = as_nobody(
        "a_refused_async_rt_priority_is_reported_not_fatal",
        QUICK_RT_SCALE,
    ) else {
        return;
    };
    assert!(
        table.contains("note: async-rt: refused, so at the default scheduling")
            && table.contains("CAP_SYS_NICE"),
        "{table}"
    );
    assert!(table.contains("async-rt *"), "{table}");
}

fn mock_scale(extra: &[&str]) -> String {
    stdout_of(&[&["bench", "--mock-timer", "--scale", "1,1000"][..], extra].concat())
}

#[test]
fn scale_table() {
    insta::assert_snapshot!("scale_table", mock_scale(&[]));
}

#[test]
fn scale_exports() {
    insta::assert_snapshot!("scale_json", mock_scale(&["--export-json", "-"]));
    insta::assert_snapshot!("scale_csv", mock_scale(&["--export-csv", "-"]));
    insta::assert_snapshot!("scale_markdown", mock_scale(&["--export-markdown", "-"]));
}

#[test]
fn scale_json_has_a_row_per_method_and_count() {
    let json: serde_json::Value =
        serde_json::from_str(&mock_scale(&["--export-json", "-"])).unwrap();
    assert_eq!(json["run"]["mode"], "scale");
    assert_eq!(json["run"]["timers"], serde_json::json!([1, 1000]));
    assert!(json
        .get("results")
        .is_some_and(|r| r.as_array().unwrap().is_empty()));
    let rows = json["scale"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        2 * 4,
        "async, async-rt, async-spin and tokio at each N"
    );
    assert_every_row_has(
        rows,
        &[
            "method",
            "ours",
            "timers",
            "samples",
            "p50_ns",
            "p90_ns",
            "p99_ns",
            "p999_ns",
            "max_ns",
            "early",
            "cpu_ns_per_timer",
            "timer_bytes",
        ],
    );
    assert!(rows.iter().all(|r| r["samples"].as_u64().unwrap() >= 100));
}

/// A real scale run, small: every method in a process of its own, through the same path as
/// a full run. Asserts only what always holds: our timers never complete early, the rounds
/// asked for are run, and no stall is longer than the latest timer was late (a stall ends
/// when some timer overdue through it completes).
#[test]
fn a_real_scale_run_measures_each_method_in_a_worker_process() {
    let rows = small_real_scale("real-scale", &["async", "async-spin", "tokio"]);
    for row in &rows {
        assert_eq!(row["timers"], 20);
        assert!(row["samples"].as_u64().unwrap() >= 60, "{row}");
        assert!(row["rounds"].as_u64().unwrap() >= 3, "{row}");
        assert!(row["longest_stall_ns"].as_u64().unwrap() <= row["max_ns"].as_u64().unwrap());
        if row["ours"] == true {
            assert_eq!(row["early"], 0, "{row}");
            assert!(row["timer_bytes"].as_u64().unwrap() > 0);
        }
    }
}

/// A real scale run of `methods` at 20 timers, 3 rounds of at least 20 samples, in the
/// order given; its rows, once the `--export-timers` file has been checked against them.
fn small_real_scale(name: &str, methods: &[&str]) -> Vec<serde_json::Value> {
    let dir = TempDir::new(name);
    let timers_csv = dir.0.join("timers.csv");
    let listed = methods.join(",");
    let rows = scale_rows_and_timers(
        &[
            "--scale",
            "20",
            "--samples",
            "20",
            "--rounds",
            "3",
            "--methods",
            &listed,
        ],
        &timers_csv,
    );
    let measured: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(measured, methods);
    assert_timer_rows_match(&timers_csv, &rows);
    rows
}

/// The multi-thread methods measure what a user with more than one core gets, so `all`
/// leaves them out (the scale table keeps its current-thread methods) and naming them runs
/// them.
#[test]
fn multi_thread_scale_methods_run_when_named_and_not_for_all() {
    let methods_of = |extra: &[&str]| -> Vec<String> {
        let json: serde_json::Value =
            serde_json::from_str(&mock_scale(&[&["--export-json", "-"][..], extra].concat()))
                .unwrap();
        let mut names: Vec<String> = json["scale"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["timers"] == 1)
            .map(|r| r["method"].as_str().unwrap().to_string())
            .collect();
        names.dedup();
        names
    };
    assert_eq!(
        methods_of(&[]),
        ["async", "async-rt", "async-spin", "tokio"]
    );
    assert_eq!(
        methods_of(&["--methods", "tokio-mt,async,async-mtw,async-mt"]),
        ["async", "async-mt", "async-mtw", "tokio-mt"]
    );
}

/// A real scale run of the multi-thread methods, small: the tasks run on a multi-thread
/// runtime's workers, and ours still never complete early.
#[test]
fn a_real_multi_thread_scale_run_is_never_early() {
    let rows = small_real_scale("real-scale-mt", &["async-mt", "async-mtw", "tokio-mt"]);
    for row in &rows {
        assert!(row["samples"].as_u64().unwrap() >= 60, "{row}");
        if row["ours"] == true {
            assert_eq!(row["early"], 0, "{row}");
        }
    }
}

/// Checks the `--export-timers` file against the run's JSON rows: the header, then for
/// each method and N exactly its rounds of N timers, deadlines within the spread, and a
/// greatest lateness equal to the row's exact maximum.
fn assert_timer_rows_match(csv: &std::path::Path, json_rows: &[serde_json::Value]) {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("method,timers,round,deadline_ns,late_ns")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 5), "five fields a row");
    let mut counted = 0;
    for json in json_rows {
        let (method, timers) = (
            json["method"].as_str().unwrap(),
            json["timers"].as_u64().unwrap(),
        );
        let mine: Vec<&Vec<&str>> = rows
            .iter()
            .filter(|r| r[0] == method && r[1].parse::<u64>().unwrap() == timers)
            .collect();
        counted += mine.len();
        let rounds = json["rounds"].as_u64().unwrap();
        assert_eq!(mine.len() as u64, rounds * timers, "{method} at {timers}");
        for round in 1..=rounds {
            let in_round = mine.iter().filter(|r| r[2] == round.to_string()).count();
            assert_eq!(
                in_round as u64, timers,
                "{method} at {timers}, round {round}"
            );
        }
        assert!(mine
            .iter()
            .all(|r| r[3].parse::<u64>().unwrap() < 99_000_000));
        let max = mine.iter().map(|r| r[4].parse::<i64>().unwrap()).max();
        assert_eq!(max, json["max_ns"].as_i64(), "{method} at {timers}");
    }
    assert_eq!(
        counted,
        rows.len(),
        "no row of a method or N the run did not measure"
    );
}

#[test]
fn every_timer_is_exported_as_a_row() {
    let dir = TempDir::new("timer-rows");
    let csv = dir.0.join("timers.csv");
    let args = [
        "--mock-timer",
        "--scale",
        "10,1000",
        "--methods",
        "async,tokio",
    ];
    let rows = scale_rows_and_timers(&args, &csv);
    assert_eq!(rows.len(), 4);
    assert_timer_rows_match(&csv, &rows);
    // A second run starts the file afresh.
    let args = ["--mock-timer", "--scale", "10", "--methods", "async"];
    let rows = scale_rows_and_timers(&args, &csv);
    assert_timer_rows_match(&csv, &rows);
}

/// Runs `punctual bench` with `args`, every timer's row going to `csv`; checks it
/// succeeded and returns the scale rows of its JSON.
fn scale_rows_and_timers(args: &[&str], csv: &std::path::Path) -> Vec<serde_json::Value> {
    let output = run(punctual()
        .arg("bench")
        .args(args)
        .args(["--export-json", "-", "--export-timers"])
        .arg(csv)
        .timeout(std::time::Duration::from_secs(120)));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    json["scale"].as_array().unwrap().clone()
}

#[test]
fn an_unwritable_timer_export_is_an_error_before_measuring() {
    assert_fails_before_measuring(
        &[
            "bench",
            "--mock-timer",
            "--scale",
            "10",
            "--export-timers",
            "/nonexistent-dir/timers.csv",
        ],
        1,
        "writing /nonexistent-dir/timers.csv",
    );
}

#[test]
fn bad_scale_arguments_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--scale", "0"], "give at least 1"),
        (&["--scale", "abc"], "not a number of timers"),
        (&["--scale", "1,-5"], "not a number of timers"),
        (&["--scale", "20000000"], "too many"),
        (&["--scale", "1", "--wait", "1ms"], "cannot be used with"),
        (&["--scale", "1", "--plot", "a.svg"], "cannot be used with"),
        (
            &["--scale", "1", "--methods", "hybrid"],
            "`hybrid` has no scale mode",
        ),
        (
            &["--methods", "async-rt"],
            "measured only in the scale mode",
        ),
        (
            &["--methods", "native,async-rt"],
            "measured only in the scale mode",
        ),
        (
            &["--scale", "1", "--methods", "async-rtx"],
            "unknown method `async-rtx`",
        ),
        (&["--scale", "1", "--rounds", "0"], "not in 1..=100000"),
        (&["--rounds", "2"], "--scale"),
        (&["--export-timers", "t.csv"], "--scale"),
        (
            &["--scale", "1", "--export-timers", "-"],
            "give a file name",
        ),
    ];
    for (args, message) in cases {
        assert_usage_error(&[&["bench"][..], args].concat(), message);
    }
}

/// An option the run would ignore, or two outputs that would spoil each other, is a usage
/// error rather than a silent surprise.
#[test]
fn ignored_or_conflicting_options_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--load-threads", "2"], "--load-threads needs --load"),
        (
            &["--load", "none", "--load-threads", "2"],
            "--load-threads needs --load",
        ),
        (&["--rounds", "1"], "--scale"),
        // Beside an option of the wait table, clap's own `requires` let these through.
        (
            &["--rounds", "3", "--wait", "1ms"],
            "--rounds needs --scale",
        ),
        (
            &["--export-timers", "t.csv", "--wait", "1ms"],
            "--export-timers needs --scale",
        ),
        (
            &["--export-json", "-", "--export-csv", "-"],
            "--export-json and --export-csv both write to standard output",
        ),
        (
            &["--export-json", "r.out", "--export-markdown", "r.out"],
            "--export-json and --export-markdown both write to r.out",
        ),
        (
            &["--export-csv", "./r.svg", "--plot", "r.svg"],
            "--export-csv and --plot both write to",
        ),
        (
            &[
                "--scale",
                "10",
                "--export-timers",
                "t.csv",
                "--export-csv",
                "t.csv",
            ],
            "--export-csv and --export-timers both write to t.csv",
        ),
    ];
    for (args, message) in cases {
        assert_usage_error(
            &[&["bench", "--mock-timer", "--samples", "5"][..], args].concat(),
            message,
        );
    }
}

/// At 1 ns a wake costs far more CPU than the wait: the table and the Markdown say so
/// rather than print a share of thousands of percent; the JSON keeps the number.
#[test]
fn a_wake_that_costs_more_than_its_wait_is_said_so() {
    let args = ["--wait", "1ns", "--methods", "hybrid,std"];
    let table = stdout_of(&[&["bench", "--mock-timer", "--samples", "20"][..], &args].concat());
    let markdown = stdout_of(
        &[
            &["bench", "--mock-timer", "--samples", "20"][..],
            &args,
            &["--export-markdown", "-"],
        ]
        .concat(),
    );
    for out in [&table, &markdown] {
        assert!(out.contains(">100%"), "{out}");
        assert!(
            out.contains("a wake cost more CPU than the wait itself"),
            "{out}"
        );
        assert!(!out.contains("000.0%"), "{out}");
    }
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        &[
            &["bench", "--mock-timer", "--samples", "20"][..],
            &args,
            &["--export-json", "-"],
        ]
        .concat(),
    ))
    .unwrap();
    assert!(json["results"][0]["cpu_share"].as_f64().unwrap() > 1.0);
}

/// The environment header of a real run (no mock) shows the default timer slack on Linux,
/// where every thread has one; a mock run's value proves nothing about reading it.
#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "timer slack is Linux's")]
fn a_real_run_shows_the_timer_slack() {
    let table = stdout_of(&[
        "bench",
        "--methods",
        "native",
        "--samples",
        "20",
        "--wait",
        "100us",
    ]);
    let slack = table
        .lines()
        .find(|line| line.trim_start().starts_with("timer slack"))
        .unwrap_or_else(|| panic!("no timer slack line in the header:\n{table}"));
    assert!(slack.contains("by default"), "{slack}");
}

/// `--repeat 3`: each cell the median over the rounds with its interval, marked and
/// footnoted as short of 95%, and the rows within 100 columns.
#[test]
fn repeat_table() {
    let table = mock_bench(&["--repeat", "3"]);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.contains(" [") && l.ends_with(" 0"))
        .collect();
    // Nine methods at each of two waits: a format change that made the filter match
    // nothing would otherwise pass unseen.
    assert_eq!(rows.len(), 18, "the rows with intervals:\n{table}");
    for line in rows {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(table.contains("* 3 rounds cannot make an interval 95% sure, at most 75%"));
    assert_the_advice_does_not_contradict_itself(&table);
    insta::assert_snapshot!("bench_repeat_table", table);
}

/// With rounds the advice calls its method closest to the deadline only where no peer it
/// names is shown closer: "closest" and a "worse" in one recommendation contradict.
fn assert_the_advice_does_not_contradict_itself(table: &str) {
    let advice = table
        .lines()
        .find(|l| l.starts_with("Recommendation: "))
        .unwrap_or_else(|| panic!("no recommendation:\n{table}"));
    assert!(advice.contains(" paired rounds "), "claims: {advice}");
    assert!(
        !(advice.contains("closest to the deadline") && advice.contains(" worse")),
        "{advice}"
    );
}

#[test]
fn repeat_compare() {
    let table = mock_bench(&[
        "--repeat",
        "6",
        "--confidence",
        "90",
        "--methods",
        "hybrid,spin,spin_sleep,std",
        "--compare",
        "hybrid,spin",
    ]);
    let lines: Vec<&str> = table.lines().filter(|l| l.contains("/spin at ")).collect();
    assert_eq!(lines.len(), 2, "one line per wait: {table}");
    assert!(lines.iter().all(|l| l.starts_with("hybrid/spin at ")));
    // Six rounds reach 90%: no interval is marked short.
    assert!(!table.contains("rounds cannot make"));
    assert_the_advice_does_not_contradict_itself(&table);
    // One method best at both waits: the claims are made at each.
    assert!(
        table.contains(" At 100us, from 6 paired rounds "),
        "{table}"
    );
    assert!(table.contains(" At 1ms, from 6 paired rounds "), "{table}");
    insta::assert_snapshot!("bench_repeat_compare", table);
}

/// One round has no interval: `--compare` says so rather than print one.
#[test]
fn compare_with_one_round_says_there_is_no_interval() {
    let table = mock_bench(&["--methods", "hybrid,std", "--compare", "std,hybrid"]);
    assert!(table.contains("std/hybrid at 100us: p50 "), "{table}");
    assert!(table.contains("(one round: no interval)"), "{table}");
}

#[test]
fn repeat_exports_carry_the_rounds_and_bounds() {
    let args = ["--repeat", "3", "--methods", "hybrid,spin_sleep"];
    let json_text = mock_bench(&[&args[..], &["--export-json", "-"]].concat());
    let json: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    for r in json["results"].as_array().unwrap() {
        assert_eq!(r["rounds"].as_array().unwrap().len(), 3);
        let over = &r["over_rounds"];
        assert_eq!(over["rounds"], 3);
        for figure in ["p50_ns", "p99_ns", "p999_ns", "cpu_ns_per_wait"] {
            let b = &over[figure];
            let (low, value, high) = (
                b["low"].as_f64().unwrap(),
                b["value"].as_f64().unwrap(),
                b["high"].as_f64().unwrap(),
            );
            assert!(low <= value && value <= high, "{figure}: {b}");
            assert_eq!(
                (b["confidence"].as_f64(), b["reach"].as_f64()),
                (Some(0.95), Some(0.75))
            );
        }
    }
    insta::assert_snapshot!("bench_repeat_json", json_text);
    let csv = mock_bench(&[&args[..], &["--export-csv", "-"]].concat());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(header.ends_with(&["confidence", "reach"]));
    for line in lines {
        assert_eq!(line.split(',').count(), header.len(), "{line}");
    }
    insta::assert_snapshot!("bench_repeat_csv", csv);
    let markdown = mock_bench(&[&args[..], &["--export-markdown", "-"]].concat());
    assert!(markdown.contains("| method | samples | p50 | p99 | cpu/wait | early |"));
    assert!(markdown.contains("\\* 3 rounds cannot make an interval 95% sure"));
    insta::assert_snapshot!("bench_repeat_markdown", markdown);
}

#[test]
fn bad_repeat_arguments_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--repeat", "0"], "0 is not in 1..=1000"),
        (&["--confidence", "150"], "give a percentage from 50 up to"),
        (&["--confidence", "high"], "is not a percentage"),
        (&["--compare", "nosuch,hybrid"], "unknown method `nosuch`"),
        (&["--compare", "hybrid"], "name two methods"),
        (&["--compare", "hybrid,hybrid"], "two different methods"),
        (
            &["--methods", "hybrid,std", "--compare", "hybrid,spin"],
            "--compare names `spin`, which --methods does not measure",
        ),
        (
            &["--repeat", "3", "--scale", "10"],
            "use `punctual scale N,... --repeat K`",
        ),
        (
            &["--repeat", "5", "--frontier"],
            "--repeat cannot be used with the deprecated --frontier, which always runs one round: use `punctual frontier --repeat K`",
        ),
        (
            &["--threads", "4", "--repeat", "3"],
            "use `punctual threads N --repeat K`",
        ),
        // A confidence with nothing to be confident of is a mistake, not a setting.
        (&["--confidence", "90"], "--repeat <K>"),
    ];
    for (args, message) in cases {
        assert_usage_error(&[&["bench"][..], args].concat(), message);
    }
    assert_usage_error(&["threads", "4", "--confidence", "90"], "--repeat <K>");
    assert_usage_error(&["frontier", "--repeat", "0"], "0 is not in 1..=1000");
    assert_usage_error(&["frontier", "--confidence", "150"], "from 50 up to");
}
