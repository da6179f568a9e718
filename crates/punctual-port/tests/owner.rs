//! The port never outlives its owner: when the process holding its pipes dies, it exits.
//!
//! The owner here is a stand-in for the BEAM: a `sleep` process given the only writer of the
//! port's stdin (as `sleep`'s stdout) and, mid-sleep, the only reader of its stdout too.
//! Killing it closes them, as the BEAM going away does.
//!
//! Skipped (ignored, with the reason) off Unix: the stand-in is POSIX `sleep`, which Wine
//! does not provide; and off Linux for the mid-sleep case, since only Linux has the output
//! watcher (elsewhere the port exits at its next write, as nanosleep's does).

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{wait_exit, Port, PATIENCE};
use punctual_port::protocol2::wire::Request;

/// Hands the only writer of the port's stdin to a stand-in owner, kills the owner, and
/// returns the port's exit code (`None` if it is still running after [`PATIENCE`]).
fn kill_owner_of(mut port: Port) -> Option<i32> {
    let to_port = port.take_input();
    let mut owner = Command::new("sleep")
        .arg("3600")
        .stdin(Stdio::null())
        .stdout(Stdio::from(to_port))
        .spawn()
        .expect("start the stand-in owner");
    owner.kill().expect("kill the owner");
    owner.wait().expect("reap the owner");
    let status = wait_exit(&mut port.child, PATIENCE);
    status.map(|s| s.code().unwrap_or(-1))
}

#[test]
#[cfg_attr(
    not(unix),
    ignore = "the stand-in owner is POSIX sleep, which Wine lacks"
)]
fn an_idle_port_exits_when_its_owner_is_killed() {
    let mut port = Port::spawn(&["--no-realtime"]);
    port.send_frame(&0i64.to_be_bytes());
    port.next_frame();
    assert_eq!(kill_owner_of(port), Some(0));
}

#[test]
#[cfg_attr(
    not(unix),
    ignore = "the stand-in owner is POSIX sleep, which Wine lacks"
)]
fn a_protocol_2_port_exits_when_its_owner_is_killed() {
    let mut port = Port::spawn(&["--no-realtime", "--protocol", "2"]);
    let mut payload = Vec::new();
    Request::WakeAfter {
        id: 1,
        duration_ns: 60_000_000_000,
        spin_ns: 0,
    }
    .encode(&mut payload);
    port.send_frame(&payload);
    assert_eq!(kill_owner_of(port), Some(0));
}

/// Mid-sleep, the port is not reading its input; Linux's output watcher notices that
/// nobody reads its answers any more. Here the owner holds both ends.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "only Linux watches stdout; elsewhere the port exits at its next write"
)]
fn a_port_mid_sleep_exits_soon_after_its_owner_is_killed() {
    let mut port = Command::new(common::binary())
        .arg("--no-realtime")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start punctual-port");
    let mut to_port = port.stdin.take().expect("stdin");
    let from_port = port.stdout.take().expect("stdout");
    std::io::Write::write_all(&mut to_port, &[0, 8])
        .and_then(|()| std::io::Write::write_all(&mut to_port, &60_000_000_000i64.to_be_bytes()))
        .expect("ask for a minute's sleep");
    let mut owner = Command::new("sleep")
        .arg("3600")
        .stdin(Stdio::from(from_port))
        .stdout(Stdio::from(to_port))
        .spawn()
        .expect("start the stand-in owner");
    std::thread::sleep(Duration::from_millis(50)); // the port is asleep by now
    assert!(port.try_wait().expect("try_wait").is_none(), "still asleep");
    owner.kill().expect("kill the owner");
    owner.wait().expect("reap the owner");
    // Far less than the minute it was asked to sleep.
    let status = wait_exit(&mut port, PATIENCE).expect("the port exits with its owner");
    assert_eq!(status.code(), Some(0));
}
