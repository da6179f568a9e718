//! Tests that need privileges, and what they do without them.
//!
//! A test that needs root (or one of its capabilities) and runs without it cannot check what
//! it is for. It says so, in a line the test harness does not capture:
//!
//! ```text
//! SKIPPED dma_latency_guard_holds_its_request_while_alive: needs write access to "/dev/cpu_dma_latency" (run as root)
//! ```
//!
//! and passes, unless [`REQUIRE_PRIVILEGED`] is set to `1`, as `scripts/test` sets it for
//! CI, which runs as root: then the same test fails, so a run that lost its privileges cannot
//! look like one that had them. Two kinds of skip, two functions:
//!
//! - [`skip_unprivileged`]: a privilege this run could have been given (root, or a
//!   capability root holds). Fails under [`REQUIRE_PRIVILEGED`].
//! - [`skip_unavailable`]: something no user of this machine can give the test (a platform
//!   without the mechanism, a kernel without the device, a container whose root lacks
//!   `CAP_SYS_RESOURCE`). Always only a skip, and said as loudly.

use std::io::Write;

/// The environment variable that turns a [`skip_unprivileged`] into a failure when it is `1`.
pub const REQUIRE_PRIVILEGED: &str = "PUNCTUAL_REQUIRE_PRIVILEGED";

/// Whether privileged tests must run rather than skip: [`REQUIRE_PRIVILEGED`] is `1`.
pub fn privileged_required() -> bool {
    std::env::var_os(REQUIRE_PRIVILEGED).is_some_and(|v| v == "1")
}

/// Whether this process runs as root (effective user id 0), by `/proc/self/status`; `false`
/// on every platform but Linux.
pub fn is_root() -> bool {
    status_field("Uid:").is_some_and(|ids| ids.split_whitespace().nth(1) == Some("0"))
}

/// Whether this process holds Linux capability `bit` (capabilities(7)) in its effective
/// set, by `/proc/self/status`; `false` on every platform but Linux.
pub fn has_capability(bit: u32) -> bool {
    status_field("CapEff:")
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << bit) != 0)
}

fn status_field(name: &str) -> Option<String> {
    // Under Wine a Windows build reads the Linux host's /proc through drive Z:, and would
    // take the host's root for its own.
    if !cfg!(target_os = "linux") {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let value = status.lines().find_map(|line| line.strip_prefix(name))?;
    Some(value.to_owned())
}

/// For `test` (or the part of it named so), which cannot run without a privilege this
/// process lacks (`reason` says which, and how to grant it): prints `SKIPPED test: reason`
/// past the harness's capture; under [`REQUIRE_PRIVILEGED`]`=1`, fails the test instead.
///
/// # Panics
///
/// When [`REQUIRE_PRIVILEGED`] is `1`: that is the failure.
#[track_caller]
pub fn skip_unprivileged(test: &str, reason: &str) {
    if privileged_required() {
        panic!("{test} needs privileges it lacks: {reason}; {REQUIRE_PRIVILEGED}=1 makes that a failure (run as root, or unset it to skip)");
    }
    announce(test, reason);
}

/// For `test` (or the part of it named so), which cannot run here for a reason no privilege
/// of this run can change (`reason`): prints `SKIPPED test: reason` past the harness's
/// capture, whatever [`REQUIRE_PRIVILEGED`] says.
pub fn skip_unavailable(test: &str, reason: &str) {
    announce(test, reason);
}

/// Writes to the process's stderr itself: the test harness captures `print!` and
/// `eprint!` of passing tests, not writes to the stream.
fn announce(test: &str, reason: &str) {
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variable is read once per call, so these run in one test, one after the other.
    #[test]
    fn a_privilege_skip_fails_only_when_privileges_are_required() {
        let before = std::env::var_os(REQUIRE_PRIVILEGED);
        std::env::remove_var(REQUIRE_PRIVILEGED);
        skip_unprivileged(
            "privilege::tests (the helper's own test)",
            "it says it is skipped, and passes",
        );
        skip_unavailable(
            "privilege::tests (the helper's own test)",
            "skipped, whatever the variable",
        );

        std::env::set_var(REQUIRE_PRIVILEGED, "1");
        let failed = std::panic::catch_unwind(|| {
            skip_unprivileged("privilege::tests (the helper's own test)", "no root")
        });
        skip_unavailable(
            "privilege::tests (the helper's own test)",
            "still only skipped",
        );
        std::env::set_var(REQUIRE_PRIVILEGED, "0");
        let passed = std::panic::catch_unwind(|| {
            skip_unprivileged("privilege::tests (the helper's own test)", "not 1")
        });

        match before {
            Some(value) => std::env::set_var(REQUIRE_PRIVILEGED, value),
            None => std::env::remove_var(REQUIRE_PRIVILEGED),
        }
        let message = failed.unwrap_err();
        let message = message.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("privilege::tests (the helper's own test)")
                && message.contains("no root"),
            "{message}"
        );
        assert!(message.contains(REQUIRE_PRIVILEGED), "{message}");
        assert!(passed.is_ok());
    }

    #[test]
    fn root_and_capabilities_agree_with_the_kernel() {
        if cfg!(target_os = "linux") {
            let euid = std::process::Command::new("id").arg("-u").output().unwrap();
            let root = String::from_utf8_lossy(&euid.stdout).trim() == "0";
            assert_eq!(is_root(), root);
            // Bit 63 is no capability (capabilities(7) end at 40-odd).
            assert!(!has_capability(63));
        } else {
            assert!(!is_root());
        }
    }
}
