//! What the CLI's test files share. Each test file is its own crate and uses only part of
//! this, hence the allowance.
#![allow(dead_code)]

pub mod pages;

use std::path::PathBuf;
use std::process::Output;
use std::sync::atomic::{AtomicU32, Ordering};

use assert_cmd::Command;
use punctual_test_support::started;

/// The `punctual` binary Cargo built for these tests.
pub fn punctual() -> Command {
    Command::cargo_bin("punctual").expect("the punctual binary is built")
}

/// Runs `command` to its end (started again if Wine failed to start it; see
/// `punctual_test_support`).
pub fn run(command: &mut Command) -> Output {
    started(|| command.output()).expect("start punctual")
}

/// Runs `punctual` with `args`, checks it succeeded, and returns what it printed.
pub fn stdout_of(args: &[&str]) -> String {
    let output = run(punctual().args(args));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Asserts that every JSON row has a non-null value for each of `fields`.
pub fn assert_every_row_has(rows: &[serde_json::Value], fields: &[&str]) {
    for field in fields {
        assert!(
            rows.iter().all(|r| !r[field].is_null()),
            "every row has `{field}`"
        );
    }
}

/// Asserts that `punctual` with `args` is a usage error: exit code 2, `message` in what it
/// wrote to stderr, no panic, and no results on stdout.
pub fn assert_usage_error(args: &[&str], message: &str) {
    assert_fails_before_measuring(args, 2, message);
}

/// Asserts that `punctual` with `args` exits with `code` and `message` on stderr, without
/// a panic and before printing any result.
pub fn assert_fails_before_measuring(args: &[&str], code: i32, message: &str) {
    let output = run(punctual().args(args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(
        stderr.contains(message),
        "{args:?}: {message:?} not in {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?} printed results");
}

/// A fresh, empty directory of a test's own under the system's temporary directory,
/// removed with everything in it when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `what` names the test in the directory's name; the process id and a count make it
    /// unique, also among tests running at once.
    pub fn new(what: &str) -> TempDir {
        static MADE: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "punctual-{what}-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        ));
        // Left by an earlier process with the same id, if any.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sends SIGINT to process `pid` (or, negative, to its process group) once the process has
/// its handler in place (see [`wait_until_caught`]).
#[cfg(target_os = "linux")]
pub fn interrupt_once_caught(pid: u32, group: bool) {
    let target = wait_until_caught(pid, group);
    let sent = std::process::Command::new("kill")
        .args(["-INT", "--", &target])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill -INT {target}");
}

/// Waits until process `pid` has its SIGINT handler in place, as `/proc/PID/status` tells
/// (bit 2 of `SigCgt`): before that, a SIGINT would end it as the default action does, which
/// says nothing of its handling. Returns `kill`'s target for it (negative: its group).
#[cfg(target_os = "linux")]
pub fn wait_until_caught(pid: u32, group: bool) -> String {
    let target = if group {
        format!("-{pid}")
    } else {
        pid.to_string()
    };
    let status = format!("/proc/{pid}/status");
    let waited = std::time::Instant::now();
    loop {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("SigCgt:"))
                    .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            })
            .is_some_and(|mask| mask & 0b10 != 0);
        if caught {
            return target;
        }
        if waited.elapsed() > std::time::Duration::from_secs(60) {
            // Not left running after the test.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &target])
                .status();
            panic!("process {pid} never caught SIGINT");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
