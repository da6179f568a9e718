//! Linux only: refused privileges for real (as `nobody`, through `setpriv` and `prlimit`),
//! Ctrl-C, and the formats side by side with cyclictest's own output.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use punctual_test_support::privilege::{is_root, skip_unavailable, skip_unprivileged};

use super::{field, lines_starting, mock, text, TempDir};

/// The binary, where `nobody` can run it: `target/` under /root is out of its reach.
fn copy_for_nobody(dir: &TempDir) -> PathBuf {
    fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o755)).unwrap();
    let binary = dir.0.join("punctual");
    fs::copy(env!("CARGO_BIN_EXE_punctual"), &binary).unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    binary
}

#[test]
fn refused_privileges_stop_the_run() {
    if !is_root() {
        skip_unprivileged(
            "refused_privileges_stop_the_run",
            "switching to nobody needs root",
        );
        return;
    }
    let dir = TempDir::new("nobody");
    let binary = copy_for_nobody(&dir);
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--priority", "80"],
            &[
                "error: measuring thread 0: setting real-time priority 80",
                "permission denied for SCHED_FIFO real-time priority",
                "CAP_SYS_NICE",
                "ulimit -r",
                "LimitRTPRIO",
            ],
        ),
        (
            &["--mlock"],
            &[
                "error: locking memory (--mlock)",
                "permission denied",
                "CAP_IPC_LOCK",
            ],
        ),
        (
            &["--dma-latency", "0"],
            &[
                "error: holding /dev/cpu_dma_latency (--dma-latency)",
                "permission denied",
                "/dev/cpu_dma_latency",
            ],
        ),
    ];
    for (args, needles) in cases {
        let output = Command::new("prlimit")
            .args(["--rtprio=0:0", "--memlock=65536:65536"])
            .args([
                "setpriv",
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg(&binary)
            .args(["grid", "-q", "--loops", "10"])
            .args(*args)
            .current_dir(&dir.0)
            .output()
            .expect("prlimit and setpriv (util-linux) are installed: see scripts/setup");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        for needle in *needles {
            assert!(
                stderr.contains(needle),
                "{args:?}: {needle:?} not in {stderr}"
            );
        }
        assert!(output.stdout.is_empty(), "{args:?} measured anyway");
    }
}

#[test]
fn ctrl_c_stops_the_run_and_still_reports() {
    let child = Command::new(env!("CARGO_BIN_EXE_punctual"))
        .args(["grid", "-q", "--duration", "60s", "-s", "native"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    crate::common::interrupt_once_caught(child.id(), false);
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary = lines_starting(&stdout, "T:");
    assert_eq!(summary.len(), 1, "{stdout}");
    assert!(field(summary[0], "C:") > 0, "{stdout}");
    assert!(stderr.contains("early, by Ctrl-C"), "{stderr}");
}

/// cyclictest's output, or `None` (and a note) when it is not installed.
fn cyclictest(args: &[&str]) -> Option<String> {
    let output = match Command::new("cyclictest").args(args).output() {
        Ok(output) => output,
        Err(_) => {
            skip_unavailable(
                &format!("cyclictest {}", args.join(" ")),
                "cyclictest (rt-tests) is not installed; see scripts/setup",
            );
            return None;
        }
    };
    assert!(output.status.success(), "{}", text(&output.stderr));
    Some(text(&output.stdout))
}

/// `(label, width)` of each field of a summary line: the label up to its colon (or the
/// opening parenthesis of the thread id), the width the number after it is printed in.
fn fields(line: &str) -> Vec<(String, usize)> {
    let mut fields = Vec::new();
    let mut label = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        label.push(c);
        if c == ':' || c == '(' {
            let mut width = 0;
            while chars
                .peek()
                .is_some_and(|c| *c == ' ' || c.is_ascii_digit())
            {
                width += 1;
                chars.next();
            }
            // The single space before the next label is a separator, not part of the width.
            let trailing = usize::from(chars.peek().is_some_and(|c| c.is_alphabetic()));
            fields.push((label.trim().to_string(), width - trailing));
            label.clear();
        }
    }
    fields
}

#[test]
fn summary_line_has_cyclictest_fields_and_widths() {
    let Some(theirs) = cyclictest(&["-q", "-l", "20", "-i", "1000", "--default-system"]) else {
        return;
    };
    let (ours, _) = mock(&["-q", "-l", "20"]);
    let theirs = lines_starting(&theirs, "T:")[0];
    let ours = lines_starting(&ours, "T:")[0];
    assert_eq!(
        fields(ours),
        fields(theirs),
        "\nours:   {ours}\ntheirs: {theirs}"
    );
    assert_eq!(fields(ours).len(), 9, "{ours}");
}

#[test]
fn histogram_has_cyclictest_rows_and_footer() {
    let args = ["-q", "-l", "20", "-t", "2", "--histogram", "5"];
    let Some(theirs) = cyclictest(&[&args[..], &["-i", "1000", "--default-system"][..]].concat())
    else {
        return;
    };
    let (ours, _) = mock(&args);
    let shape = |line: &str| line.replace(|c: char| c.is_ascii_digit(), "9");
    let rows = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| !l.starts_with('#'))
            .map(shape)
            .collect()
    };
    assert_eq!(
        rows(&ours),
        rows(&theirs),
        "\nours:\n{ours}\ntheirs:\n{theirs}"
    );
    // Every one of cyclictest's `#` lines, in order, with the same fields; ours adds more.
    let labels = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect()
    };
    let (ours_labels, theirs_labels) = (labels(&ours), labels(&theirs));
    assert_eq!(ours_labels[..theirs_labels.len()], theirs_labels[..]);
    for label in [
        "# Total",
        "# Min Latencies",
        "# Max Latencies",
        "# Histogram Overflows",
    ] {
        let line = |out: &str| {
            out.lines()
                .find(|l| l.starts_with(label))
                .map(shape)
                .unwrap()
        };
        assert_eq!(line(&ours), line(&theirs), "{label}");
    }
}

#[test]
fn json_has_every_key_cyclictest_writes() {
    let dir = TempDir::new("cyclictest-json");
    let path = dir.0.join("c.json");
    let args = [
        "-q",
        "-l",
        "20",
        "-i",
        "1000",
        "-t",
        "2",
        "-h",
        "10",
        "--default-system",
    ];
    let json_arg = format!("--json={}", path.display());
    if cyclictest(&[&args[..], &[json_arg.as_str()][..]].concat()).is_none() {
        return;
    }
    let theirs: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let (ours, _) = mock(&["-l", "20", "-t", "2", "--histogram", "10", "--json", "-"]);
    let ours: serde_json::Value = serde_json::from_str(&ours).unwrap();
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    for (theirs, ours) in [
        (&theirs, &ours),
        (&theirs["sysinfo"], &ours["sysinfo"]),
        (&theirs["thread"], &ours["thread"]),
        (&theirs["thread"]["0"], &ours["thread"]["0"]),
    ] {
        for key in keys(theirs) {
            let (a, b) = (&theirs[&key], &ours[&key]);
            assert!(!b.is_null(), "ours lacks {key}: {ours}");
            let kind = |v: &serde_json::Value| {
                if v.is_object() {
                    "object"
                } else if v.is_string() {
                    "string"
                } else {
                    "number"
                }
            };
            assert_eq!(kind(a), kind(b), "{key}: theirs {a}, ours {b}");
        }
    }
}
