//! `punctual grid`, run as a user runs it: output formats against snapshots (with the hidden
//! `--mock-timer`, so every run prints the same) and against cyclictest's own output where
//! cyclictest is installed, bad arguments, refused privileges, and short real runs whose
//! figures are only checked for what always holds.

use std::process::Output;

mod common;
use common::{assert_usage_error, punctual, TempDir};

fn run(args: &[&str]) -> Output {
    common::run(punctual().arg("grid").args(args))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a mock grid; checks it succeeded; returns (stdout, stderr).
fn mock(args: &[&str]) -> (String, String) {
    let output = common::run(punctual().args(["grid", "--mock-timer"]).args(args));
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(
        output.status.success(),
        "{args:?} failed:\n{stdout}\n{stderr}"
    );
    (stdout, stderr)
}

fn lines_starting<'a>(out: &'a str, prefix: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.starts_with(prefix)).collect()
}

/// The value after `label` in a `T:` or `Q:` line.
fn field(line: &str, label: &str) -> u64 {
    let rest = &line[line
        .find(label)
        .unwrap_or_else(|| panic!("{label} in {line}"))
        + label.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn default_output_has_environment_settings_and_cyclictest_lines() {
    // 100 us on the mock native timer: every 97th wake-up is 250 us late and skips periods.
    let (stdout, stderr) = mock(&[
        "--loops",
        "300",
        "--interval",
        "100us",
        "--strategy",
        "native",
    ]);
    insta::assert_snapshot!("default_output", stdout);
    insta::assert_snapshot!("default_warnings", stderr);
}

#[test]
fn quiet_prints_only_results_and_moves_the_environment_to_stderr() {
    let (stdout, stderr) = mock(&["-q", "-l", "1000", "-t", "2", "-a", "-p", "80"]);
    insta::assert_snapshot!("quiet", stdout);
    assert!(stderr.contains("os               MockOS"), "{stderr}");
    assert!(stderr.contains("SCHED_FIFO 80"), "{stderr}");
}

#[test]
fn histogram_follows_cyclictest_and_lists_overflows() {
    // The mock native timer wakes 18-24 us late: a 22 us histogram overflows often, more often
    // than it has bins to list cycle numbers for.
    let (stdout, _) = mock(&[
        "-q",
        "-l",
        "200",
        "-t",
        "2",
        "--histogram",
        "22",
        "--strategy",
        "native",
    ]);
    insta::assert_snapshot!("histogram_quiet", stdout);
    let (stdout, _) = mock(&["-l", "50", "--histogram", "3"]);
    assert_eq!(lines_starting(&stdout, "T:").len(), 1, "{stdout}");
    assert!(stdout.contains("# Histogram\n000000 "), "{stdout}");
}

#[test]
fn json_follows_the_rt_tests_layout() {
    let (stdout, stderr) = mock(&[
        "-l",
        "100",
        "-t",
        "2",
        "--histogram",
        "25",
        "-s",
        "native",
        "--json",
        "-",
    ]);
    insta::assert_snapshot!("json", stdout);
    // The text results would spoil the JSON on stdout; the environment goes to stderr.
    assert!(stderr.contains("punctual grid:"), "{stderr}");
}

#[test]
fn json_file_is_written_beside_the_text_results() {
    let dir = TempDir::new("json");
    let output = common::run(
        punctual()
            .args([
                "grid",
                "--mock-timer",
                "-q",
                "-l",
                "20",
                "--json",
                "out.json",
            ])
            .current_dir(&dir.0),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(lines_starting(&text(&output.stdout), "T:").len(), 1);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.0.join("out.json")).unwrap()).unwrap();
    assert_eq!(
        json["cmdline:"],
        "punctual grid --mock-timer -q -l 20 --json out.json"
    );
    assert_eq!(json["thread"]["0"]["cycles"], 20);
    assert_eq!(json["thread"]["0"]["histogram"], serde_json::json!({}));
}

#[test]
fn duration_stops_each_thread_at_the_first_wake_up_past_it() {
    // Tick k of the mock grid wakes just after (k + 1) ms: the 50th is the first past 50 ms.
    let (stdout, _) = mock(&["-q", "--duration", "50ms", "--interval", "1ms"]);
    assert_eq!(
        field(lines_starting(&stdout, "T:")[0], "C:"),
        50,
        "{stdout}"
    );
}

/// The end of `--duration` ends a wait for a period longer than what is left: a run of 1 s
/// at a 60 s interval takes about a second, not a minute (and measures no period).
#[test]
fn the_end_of_the_duration_ends_a_long_wait() {
    let output = common::run(
        punctual()
            .args(["grid", "-q", "--interval", "60s", "--duration", "1s"])
            .timeout(std::time::Duration::from_secs(30)),
    );
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(field(lines_starting(&stdout, "T:")[0], "C:"), 0, "{stdout}");
}

#[test]
fn bad_arguments_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--interval", "0"], "no unit"),
        (&["--interval", "0ms"], "zero"),
        (&["--interval", "-1ms"], "negative"),
        (&["--interval", "500ns"], "at least 1us"),
        (&["--loops", "0"], "--loops"),
        (&["--priority", "-5"], "--priority"),
        (&["--threads", "-2"], "1 to 1024"),
        (&["--loops", "-3"], "--loops"),
        (&["--threads", "0"], "1 to 1024"),
        (&["--threads", "many"], "not a thread count"),
        (&["--priority", "100"], "1..=99"),
        (&["--priority", "0"], "1..=99"),
        (&["--strategy", "turbo"], "unknown strategy `turbo`"),
        (&["--histogram", "0"], "--histogram"),
        (&["--histogram", "1000001"], "--histogram"),
        (&["--loops", "5", "--duration", "1s"], "cannot be used with"),
        (&["--duration", "0s"], "zero"),
        (&["--duration", "40d"], "too long"),
        (&["--affinity=1-x"], "not a CPU list"),
        (&["--affinity=3-1"], "not a CPU list"),
        (&["--dma-latency", "-1"], "--dma-latency"),
        (&["--bogus"], "--bogus"),
    ];
    for (args, message) in cases {
        assert_usage_error(&[&["grid"][..], args].concat(), message);
    }
}

/// What holds of any real run, however noisy the machine: the counts add up, the figures are
/// ordered, and no more periods are counted than the run had time for.
#[test]
fn a_real_run_reports_consistent_figures() {
    // 1 us periods: most wake-ups come too late for the next period, so skips are exercised.
    for interval in ["1us", "1ms"] {
        let output = run(&[
            "-q", "-l", "30", "-i", interval, "-s", "native", "--json", "-",
        ]);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let t = &json["thread"]["0"];
        let n = |key: &str| t[key].as_u64().unwrap_or_else(|| panic!("{key} in {t}"));
        assert_eq!(n("cycles"), 30);
        assert!(n("min") as f64 <= t["avg"].as_f64().unwrap());
        assert!(t["avg"].as_f64().unwrap() <= n("max") as f64);
        assert!(n("p50_ns") <= n("p99_ns") && n("p99_ns") <= n("p999_ns"));
        assert!(n("p999_ns") / 1000 <= n("max") + 1, "{t}");
        let interval_ns = json["punctual"]["interval_ns"].as_u64().unwrap();
        let wall_ns = json["punctual"]["wall_ns"].as_u64().unwrap();
        assert!(
            (n("cycles") + n("missed")) * interval_ns <= wall_ns,
            "{json}"
        );
    }
}

#[test]
fn threads_pinned_in_turn_report_their_cpus() {
    let output = run(&["-q", "-l", "5", "-t", "2", "-a", "--json", "-"]);
    let stderr = text(&output.stderr);
    if output.status.code() == Some(1) && stderr.contains("not available on") {
        punctual_test_support::privilege::skip_unavailable(
            "threads_pinned_in_turn_report_their_cpus",
            &format!("no CPU affinity on this platform: {stderr}"),
        );
        return;
    }
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let cpus: Vec<_> = (0..2)
        .map(|i| json["thread"][i.to_string()]["cpu"].as_i64().unwrap())
        .collect();
    // Two CPUs in turn, or the one CPU this process may use twice.
    assert!(cpus == [0, 1] || cpus[0] == cpus[1], "{cpus:?}");
}

/// With a priority, the run either gets it (and says which policy) or stops before measuring
/// with the reason.
#[test]
fn a_priority_is_applied_or_the_run_stops() {
    let output = run(&["-q", "-l", "5", "-p", "80", "--json", "-"]);
    let stderr = text(&output.stderr);
    if output.status.success() {
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let scheduling = json["thread"]["0"]["scheduling"].as_str().unwrap();
        assert!(
            scheduling == "SCHED_FIFO 80"
                || scheduling.starts_with("THREAD_PRIORITY_TIME_CRITICAL")
                || scheduling.starts_with("THREAD_TIME_CONSTRAINT_POLICY"),
            "{scheduling}"
        );
    } else {
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("setting real-time priority 80"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// Memory locking and the DMA latency request either take effect or stop the run with the
/// library's reason (on Windows and macOS: not available).
#[test]
fn memory_lock_and_dma_latency_are_applied_or_the_run_stops() {
    for (flag, context) in [
        (&["--mlock"][..], "locking memory (--mlock)"),
        (
            &["--dma-latency", "0"][..],
            "holding /dev/cpu_dma_latency (--dma-latency)",
        ),
    ] {
        let output = run(&[&["-q", "-l", "3"][..], flag].concat());
        let stderr = text(&output.stderr);
        if output.status.success() {
            assert_eq!(lines_starting(&text(&output.stdout), "T:").len(), 1);
        } else {
            assert_eq!(output.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains(context), "{stderr}");
            assert!(
                stderr.contains("not available on") || stderr.contains("permission denied"),
                "{stderr}"
            );
            assert!(output.stdout.is_empty());
        }
    }
}

#[cfg(target_os = "linux")]
#[path = "grid/linux.rs"]
mod linux;

#[cfg(not(target_os = "linux"))]
#[test]
fn refused_privileges_stop_the_run() {
    punctual_test_support::privilege::skip_unavailable(
        "refused_privileges_stop_the_run",
        "setpriv and prlimit are Linux tools",
    );
}
