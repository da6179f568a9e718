//! Where results go, and what happens when they cannot go there: every output is checked
//! before anything is measured; each that can be written is written when another fails; an
//! existing file is replaced only by a whole run's results; a standard output that is full
//! is an error, one whose reader went away ends the output quietly. No panic anywhere.

mod common;
use common::{assert_fails_before_measuring, TempDir};

#[cfg(target_os = "linux")]
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A mock bench run, short.
const QUICK: [&str; 8] = [
    "bench",
    "--mock-timer",
    "--samples",
    "20",
    "--wait",
    "1ms",
    "--methods",
    "hybrid,std",
];

#[test]
fn every_export_is_checked_before_measuring() {
    let dir = TempDir::new("checked-first");
    let missing = dir.0.join("no-such-dir").join("x.json");
    let missing = missing.to_str().unwrap();
    // Beside the one that cannot be written, one that can: it is not written either.
    let cases = [
        ("--export-json", "--export-csv", "good.csv"),
        ("--export-csv", "--export-markdown", "good.md"),
        ("--export-markdown", "--export-json", "good.json"),
    ];
    for (bad, other, name) in cases {
        let good = dir.0.join(name);
        let args = [&QUICK[..], &[bad, missing, other, good.to_str().unwrap()]].concat();
        assert_fails_before_measuring(&args, 1, &format!("writing {missing}"));
        assert!(!good.exists(), "{bad}: nothing written when a check fails");
    }
    let plot = dir.0.join("no-such-dir").join("p.svg");
    let plot = plot.to_str().unwrap();
    assert_fails_before_measuring(
        &[&QUICK[..], &["--plot", plot]].concat(),
        1,
        &format!("writing the plot to {plot}"),
    );
    let a_dir = dir.0.to_str().unwrap();
    assert_fails_before_measuring(
        &[&QUICK[..], &["--export-json", a_dir]].concat(),
        1,
        "is a directory",
    );
}

/// The grid's `--json` FILE is checked before the run, and written only by a run that
/// completes: a refused setting leaves an existing file as it was.
#[test]
fn a_refused_grid_setting_leaves_an_existing_json_file_as_it_was() {
    let dir = TempDir::new("grid-refused-json");
    let json = dir.0.join("out.json");
    std::fs::write(&json, "an earlier run's results\n").unwrap();
    // No machine has a CPU 4000: pinning to it is refused before anything is measured.
    assert_fails_before_measuring(
        &[
            "grid",
            "-q",
            "-l",
            "10",
            "--affinity",
            "4000",
            "--json",
            json.to_str().unwrap(),
        ],
        1,
        "CPU 4000",
    );
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        "an earlier run's results\n"
    );
    let entries = std::fs::read_dir(&dir.0).unwrap().count();
    assert_eq!(entries, 1, "no temporary file left behind");
    let missing = dir.0.join("no-such-dir").join("out.json");
    assert_fails_before_measuring(
        &[
            "grid",
            "--mock-timer",
            "-l",
            "10",
            "--json",
            missing.to_str().unwrap(),
        ],
        1,
        "no-such-dir",
    );
}

/// Linux's `/dev/full` fails every write with ENOSPC, after it was opened: the one output
/// no check beforehand can catch.
#[cfg(target_os = "linux")]
mod full {
    use super::common::{punctual, run};
    use super::*;
    use std::process::Stdio;

    #[test]
    fn a_failing_export_does_not_drop_the_others() {
        let dir = TempDir::new("one-fails");
        let (csv, svg, md) = (
            dir.0.join("good.csv"),
            dir.0.join("p.svg"),
            dir.0.join("r.md"),
        );
        let output = run(punctual().args(QUICK).args([
            "--export-json",
            "/dev/full",
            "--export-csv",
            csv.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
            "--export-markdown",
            md.to_str().unwrap(),
        ]));
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("writing /dev/full") && stderr.contains("No space left"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stdout.contains("Recommendation:"), "the table: {stdout}");
        assert!(std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("method,"));
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
        assert!(std::fs::read_to_string(&md)
            .unwrap()
            .starts_with("## punctual bench"));
    }

    /// Every command with its standard output on `/dev/full`: an error (exit 1) that says
    /// so, never a panic; the files beside it are still written.
    #[test]
    fn a_full_standard_output_is_an_error() {
        let dir = TempDir::new("stdout-full");
        let csv = dir.0.join("r.csv");
        let commands: &[&[&str]] = &[
            &[&QUICK[..], &["--export-csv", csv.to_str().unwrap()]].concat(),
            &[&QUICK[..], &["--export-json", "-"]].concat(),
            &["bench", "--list-methods"],
            &[
                "bench",
                "--mock-timer",
                "--scale",
                "10",
                "--methods",
                "async",
            ],
            &["probe", "--mock-timer", "--time-per-request", "20ms"],
            &[
                "probe",
                "--mock-timer",
                "--time-per-request",
                "20ms",
                "--json",
            ],
            &["grid", "--mock-timer", "-l", "20"],
            &["grid", "--mock-timer", "-l", "20", "--json", "-"],
            &["bench", "--help"],
        ];
        for args in commands {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_punctual"))
                .args(*args)
                .stdout(Stdio::from(full))
                .output()
                .unwrap();
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.contains("standard output") && stderr.contains("No space left"),
                "{args:?}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        }
        assert!(std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("method,"));
    }
}

/// A reader that goes away (`punctual grid | head -c10`): the output ends there, quietly,
/// with exit code 0, and the files beside it are still written. Linux: the test closes its
/// end of the pipe before the child writes.
#[cfg(target_os = "linux")]
mod closed_pipe {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn a_closed_standard_output_ends_the_output_quietly() {
        let dir = TempDir::new("stdout-closed");
        let csv = dir.0.join("r.csv");
        let json = dir.0.join("g.json");
        let commands: &[&[&str]] = &[
            &[&QUICK[..], &["--export-csv", csv.to_str().unwrap()]].concat(),
            &[&QUICK[..], &["--export-markdown", "-"]].concat(),
            &["bench", "--list-methods"],
            &[
                "bench",
                "--mock-timer",
                "--scale",
                "10",
                "--methods",
                "async",
            ],
            &["probe", "--mock-timer", "--time-per-request", "20ms"],
            &[
                "grid",
                "--mock-timer",
                "-l",
                "20",
                "--json",
                json.to_str().unwrap(),
            ],
            &["grid", "--mock-timer", "-l", "20", "--json", "-"],
        ];
        for args in commands {
            let mut child = Command::new(env!("CARGO_BIN_EXE_punctual"))
                .args(*args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            drop(child.stdout.take());
            let output = child.wait_with_output().unwrap();
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            assert!(!stderr.contains("error"), "{args:?}: {stderr}");
        }
        assert!(std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("method,"));
        let grid: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(grid["thread"]["0"]["cycles"], 20);
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "/dev/full and a pipe closed under the child are Linux's (Wine's pipes differ)"]
fn a_full_or_closed_standard_output() {}
