//! The bench modes as subcommands, and the deprecated flags that still start them for one
//! release: the same run, the same output, and a note on standard error.

mod common;
use common::{punctual, run};

/// stdout and stderr of a successful run.
fn outputs(args: &[&str]) -> (String, String) {
    let output = run(punctual().args(args));
    assert!(output.status.success(), "{args:?}: {output:?}");
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// `old` (a deprecated `bench` flag) prints what `new` prints, and says what to run instead.
fn assert_deprecated_alias(old: &[&str], new: &[&str], instead: &str) {
    let (old_out, old_err) = outputs(old);
    let (new_out, new_err) = outputs(new);
    assert_eq!(old_out, new_out, "{old:?} against {new:?}");
    assert!(
        old_err.contains("deprecated") && old_err.contains(instead),
        "{old_err}"
    );
    assert!(!new_err.contains("deprecated"), "{new_err}");
}

#[test]
fn bench_frontier_is_the_frontier_subcommand() {
    let mode = ["--mock-timer", "--samples", "200", "--wait", "1ms"];
    // The deprecated flag keeps the one round it always measured.
    assert_deprecated_alias(
        &[&["bench", "--frontier"][..], &mode].concat(),
        &[&["frontier", "--repeat", "1"][..], &mode].concat(),
        "punctual frontier",
    );
}

#[test]
fn bench_threads_is_the_threads_subcommand() {
    let mode = ["--mock-timer", "--duration", "1s"];
    assert_deprecated_alias(
        &[&["bench", "--threads", "3"][..], &mode].concat(),
        &[&["threads", "3"][..], &mode].concat(),
        "punctual threads N",
    );
}

#[test]
fn bench_scale_is_the_scale_subcommand() {
    let mode = [
        "--mock-timer",
        "--methods",
        "async,tokio",
        "--export-csv",
        "-",
    ];
    assert_deprecated_alias(
        &[&["bench", "--scale", "1,1000"][..], &mode].concat(),
        &[&["scale", "1,1000"][..], &mode].concat(),
        "punctual scale N,...",
    );
}

/// The JSON export names the command line that made the run, as the run's context holds it.
#[test]
fn the_export_names_the_command_that_made_it() {
    let (json, _) = outputs(&[
        "threads",
        "2",
        "--mock-timer",
        "--duration",
        "1s",
        "--export-json",
        "-",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        json["command"],
        serde_json::json!([
            "punctual",
            "threads",
            "2",
            "--mock-timer",
            "--duration",
            "1s",
            "--export-json",
            "-"
        ])
    );
}

/// Each mode's own flags are its own: a flag of another mode is a usage error.
#[test]
fn a_flag_of_another_mode_is_a_usage_error() {
    for args in [
        &["threads", "2", "--wait", "1ms"][..],
        &["frontier", "--methods", "std"],
        &["scale", "10", "--plot", "p.svg"],
        &["frontier", "--export-csv", "-"],
    ] {
        let output = run(punctual().args(args));
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
    }
}
