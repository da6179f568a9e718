//! What the CLI's test files share. Each test file is its own crate and uses only part of
//! this, hence the allowance.
#![allow(dead_code)]

use assert_cmd::Command;

/// The `punctual` binary Cargo built for these tests.
pub fn punctual() -> Command {
    Command::cargo_bin("punctual").expect("the punctual binary is built")
}

/// Runs `punctual` with `args`, checks it succeeded, and returns what it printed.
pub fn stdout_of(args: &[&str]) -> String {
    let output = punctual().args(args).output().unwrap();
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
