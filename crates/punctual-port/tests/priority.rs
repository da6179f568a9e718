//! Real-time flags, checked against the kernel's own account (`/proc/PID/task/TID/stat`
//! fields 40 and 41: rt_priority and policy), and refusals checked by running the binary as
//! `nobody` with no real-time limit:
//! `prlimit --rtprio=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all`,
//! on a copy in a world-readable directory (`nobody` cannot enter `target/` under `/root`).
//!
//! Linux only (ignored elsewhere, with the reason), and these need root to set priorities
//! and drop privileges: without it each says it is skipped, or fails under
//! `PUNCTUAL_REQUIRE_PRIVILEGED=1`, as CI (which runs as root) sets it.

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use common::Port;
use punctual_test_support::privilege;

const SCHED_FIFO: u32 = 1;

fn skip_unless_root(test: &str) -> bool {
    if privilege::is_root() {
        return false;
    }
    privilege::skip_unprivileged(test, "needs root");
    true
}

/// `(policy, rt_priority)` of every thread of `pid`, by the kernel.
fn scheduling(pid: u32) -> Vec<(u32, u32)> {
    fs::read_dir(format!("/proc/{pid}/task"))
        .expect("the port's tasks")
        .map(|task| thread_scheduling(&task.expect("a task").path().join("stat")))
        .collect()
}

/// `(policy, rt_priority)` of the main thread of `pid`.
fn main_thread(pid: u32) -> (u32, u32) {
    thread_scheduling(&PathBuf::from(format!("/proc/{pid}/task/{pid}/stat")))
}

fn thread_scheduling(stat: &std::path::Path) -> (u32, u32) {
    let stat = fs::read_to_string(stat).expect("a thread's stat");
    // The fields after the command name, which is in parentheses and may hold spaces:
    // field 3 is the first of them, so field n is at index n - 3.
    let fields: Vec<&str> = stat[stat.rfind(')').expect(")") + 2..]
        .split_whitespace()
        .collect();
    let field = |n: usize| fields[n - 3].parse::<u32>().expect("a number");
    (field(41), field(40))
}

/// Asks for one zero sleep and waits for the answer: the port is past its set-up.
fn ready(port: &mut Port, protocol: u8) {
    if protocol == 1 {
        port.send_frame(&0i64.to_be_bytes());
    } else {
        port.send_frame(&[0x04, 0, 0, 0, 0, 0, 0, 0, 1]);
    }
    port.next_frame();
}

/// A copy of the binary that `nobody` can run, and the command running it unprivileged.
fn unprivileged(args: &[&str]) -> (Command, PathBuf) {
    let dir = std::env::temp_dir().join(format!("punctual-port-test-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a temp dir");
    let copy = dir.join(format!("punctual-port-{}", args.join("_").replace('-', "")));
    fs::copy(common::binary(), &copy).expect("copy the binary");
    let chmod = |path: &PathBuf, mode: &str| {
        let status = Command::new("chmod").arg(mode).arg(path).status();
        assert!(status.expect("chmod").success());
    };
    chmod(&dir, "755");
    chmod(&copy, "755");
    let mut command = Command::new("prlimit");
    command
        .args([
            "--rtprio=0:0",
            "setpriv",
            "--reuid=nobody",
            "--regid=nogroup",
        ])
        .args(["--clear-groups", "--inh-caps=-all"])
        .arg(&copy)
        .args(args);
    (command, copy)
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "SCHED_FIFO, /proc and setpriv are Linux's"
)]
fn priority_refused_to_an_unprivileged_user_exits_3() {
    if skip_unless_root("priority_refused_to_an_unprivileged_user_exits_3") {
        return;
    }
    for protocol in ["1", "2"] {
        let (mut command, copy) = unprivileged(&["--protocol", protocol, "--priority", "10"]);
        let port = Port::spawn_command(&mut command);
        let (status, stderr) = port.wait();
        let _ = fs::remove_file(copy);
        assert_eq!(status.code(), Some(3), "protocol {protocol}: {stderr}");
        assert!(stderr.contains("--priority refused"), "{stderr}");
        // The message says how to allow it.
        assert!(stderr.contains("CAP_SYS_NICE"), "{stderr}");
    }
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "SCHED_FIFO, /proc and setpriv are Linux's"
)]
fn refused_without_a_fixed_priority_carries_on_with_a_note() {
    if skip_unless_root("refused_without_a_fixed_priority_carries_on_with_a_note") {
        return;
    }
    let me = std::process::id().to_string();
    for args in [&["--above", &me][..], &[], &["--protocol", "2"]] {
        let (mut command, copy) = unprivileged(args);
        let mut port = Port::spawn_command(&mut command);
        let protocol = if args.contains(&"2") { 2 } else { 1 };
        ready(&mut port, protocol);
        let threads = scheduling(port.child.id());
        port.close_input();
        let (status, stderr) = port.wait();
        let _ = fs::remove_file(copy);
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.contains("note: carrying on without real time"),
            "{args:?}: {stderr}"
        );
        assert!(threads.iter().all(|&(policy, _)| policy != SCHED_FIFO));
    }
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "SCHED_FIFO, /proc and setpriv are Linux's"
)]
fn every_thread_gets_the_priority_asked_for() {
    if skip_unless_root("every_thread_gets_the_priority_asked_for") {
        return;
    }
    for (protocol, args, expected) in [
        (1, &["--priority", "10"][..], 10),
        (2, &["--priority", "10"], 10),
        (1, &[], 1),
        (2, &[], 1),
    ] {
        let mut port = Port::spawn(&[&["--protocol", &protocol.to_string()], args].concat());
        ready(&mut port, protocol);
        let threads = scheduling(port.child.id());
        // The port's own threads (protocol 1's output watcher only waits for its owner).
        let sleepers = if protocol == 1 { 1 } else { 2 };
        let at_priority = threads
            .iter()
            .filter(|&&thread| thread == (SCHED_FIFO, expected))
            .count();
        assert!(
            at_priority >= sleepers,
            "protocol {protocol} {args:?}: {threads:?}"
        );
        port.close_input();
        assert_eq!(port.wait().0.code(), Some(0));
    }
    let mut port = Port::spawn(&["--no-realtime"]);
    ready(&mut port, 1);
    assert!(scheduling(port.child.id())
        .iter()
        .all(|&(policy, _)| policy != SCHED_FIFO));
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "SCHED_FIFO, /proc and setpriv are Linux's"
)]
fn above_follows_the_other_process_after_each_answer() {
    if skip_unless_root("above_follows_the_other_process_after_each_answer") {
        return;
    }
    let mut beam = Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("a stand-in BEAM");
    let beam_pid = beam.id().to_string();
    let mut port = Port::spawn(&["--above", &beam_pid]);
    ready(&mut port, 1);
    assert_eq!(
        main_thread(port.child.id()),
        (SCHED_FIFO, 1),
        "lowest while not RT"
    );

    let chrt = |priority: &str| {
        let status = Command::new("chrt")
            .args(["-f", "-p", priority, &beam_pid])
            .status();
        assert!(status.expect("chrt").success());
    };
    // The port follows just after writing each answer, so the first answer after a
    // change may arrive before it followed; the second comes only once it has.
    let answered_twice = |port: &mut Port| {
        ready(port, 1);
        ready(port, 1);
    };
    chrt("20");
    answered_twice(&mut port);
    assert_eq!(main_thread(port.child.id()), (SCHED_FIFO, 21));
    chrt("5");
    answered_twice(&mut port);
    assert_eq!(main_thread(port.child.id()), (SCHED_FIFO, 6));
    let _ = beam.kill();
    let _ = beam.wait();
}
