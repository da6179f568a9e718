//! Protocol 1 through real pipes: nanosleep 0.3's bytes, answers and exit statuses.
//!
//! Every port here runs with `--no-realtime`: these tests are about the protocol, and a
//! SCHED_FIFO port on a shared 2-core machine would only make the others slower.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Port;

fn request(ns: i64) -> Vec<u8> {
    ns.to_be_bytes().to_vec()
}

fn slept(frame: &[u8]) -> u64 {
    u64::from_be_bytes(frame.try_into().expect("an 8-byte answer"))
}

#[test]
fn answers_with_at_least_the_time_asked() {
    let mut port = Port::spawn(&["--no-realtime"]);
    for ns in [1, 1_000, 100_000, 1_000_000, 5_000_000] {
        let sent = Instant::now();
        port.send_frame(&request(ns));
        let answer = port.next_frame();
        let round_trip = sent.elapsed();
        assert_eq!(answer.len(), 8);
        let slept = slept(&answer);
        assert!(slept >= ns as u64, "asked {ns} ns, slept {slept} ns");
        // The port's own measure fits inside the round trip the test saw.
        assert!(
            Duration::from_nanos(slept) <= round_trip,
            "slept {slept} ns within a round trip of {round_trip:?}"
        );
    }
    port.close_input();
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

#[test]
fn zero_and_negative_durations_answer_at_once() {
    let mut port = Port::spawn(&["--no-realtime"]);
    for ns in [0, -1, -1_000_000_000, i64::MIN] {
        port.send_frame(&request(ns));
        let slept = slept(&port.next_frame());
        // "At once" is a clock read or two; a generous bound that no real sleep would meet.
        assert!(slept < 500_000_000, "{ns} ns: slept {slept} ns");
    }
}

#[test]
fn requests_are_served_one_after_another() {
    let mut port = Port::spawn(&["--no-realtime"]);
    // Sent together, but each sleep starts when the port reads it, after the last answer.
    let mut burst = Vec::new();
    for _ in 0..20 {
        punctual_port::frame::push_frame(&mut burst, &request(200_000));
    }
    let sent = Instant::now();
    port.send_raw(&burst);
    for _ in 0..20 {
        assert!(slept(&port.next_frame()) >= 200_000);
    }
    assert!(sent.elapsed() >= Duration::from_micros(20 * 200));
}

#[test]
fn every_strategy_and_spin_tail_sleeps_at_least_the_time_asked() {
    for args in [
        &["--strategy", "hybrid"][..],
        &["--strategy", "spin"],
        &["--spin", "250000"],
        &["--spin", "5000000"], // a tail longer than the sleep spins all of it
    ] {
        let mut port = Port::spawn(&[&["--no-realtime"], args].concat());
        for ns in [50_000, 1_000_000, 3_000_000] {
            port.send_frame(&request(ns));
            let slept = slept(&port.next_frame());
            assert!(
                slept >= ns as u64,
                "{args:?}: asked {ns} ns, slept {slept} ns"
            );
        }
    }
}

#[test]
fn a_frame_of_the_wrong_length_exits_2_with_a_message() {
    for payload in [&[1u8, 2, 3][..], &[0; 9], &[]] {
        let mut port = Port::spawn(&["--no-realtime"]);
        port.send_frame(payload);
        let (status, stderr) = port.wait();
        assert_eq!(status.code(), Some(2), "length {}", payload.len());
        assert!(
            stderr.contains(&format!("frame of length {}", payload.len())),
            "stderr: {stderr}"
        );
    }
}

#[test]
fn a_malformed_frame_after_good_ones_exits_2_after_answering_them() {
    let mut port = Port::spawn(&["--no-realtime"]);
    port.send_frame(&request(1_000));
    port.send_raw(&[0xFF, 0xFF, 0, 0]); // a header announcing 65535 bytes
    assert!(slept(&port.next_frame()) >= 1_000);
    port.close_input();
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("malformed"), "stderr: {stderr}");
}

#[test]
fn a_short_payload_exits_2_with_a_message() {
    let mut port = Port::spawn(&["--no-realtime"]);
    port.send_raw(&[0, 8, 1, 2, 3]);
    port.close_input();
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(2));
    assert!(
        stderr.contains("ended after 3 of the 8 payload bytes"),
        "stderr: {stderr}"
    );
}

#[test]
fn the_end_of_input_exits_0() {
    // Straight away, after a request, and in the middle of a header.
    for bytes in [&[][..], &[0, 8, 0, 0, 0, 0, 0, 0, 0, 1], &[0]] {
        let mut port = Port::spawn(&["--no-realtime"]);
        port.send_raw(bytes);
        port.close_input();
        let (status, stderr) = port.wait();
        assert_eq!(status.code(), Some(0), "after {bytes:?}: {stderr}");
        assert!(stderr.is_empty(), "stderr: {stderr}");
    }
}

#[test]
fn a_failed_write_exits_0_not_by_a_signal() {
    let mut command = Command::new(common::binary());
    command
        .arg("--no-realtime")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child =
        punctual_test_support::started(|| command.spawn()).expect("start punctual-port");
    drop(child.stdout.take()); // nobody will read the answer
    let mut frame = vec![0, 8];
    frame.extend_from_slice(&request(1_000_000));
    // The port may already be gone (Linux watches its stdout): then this write fails.
    let _ = child.stdin.as_mut().expect("stdin").write_all(&frame);
    let status = common::wait_exit(&mut child, common::PATIENCE).expect("the port exits");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// Linux watches stdout and usually exits before a write can fail, so check the
/// disposition the failed-write path relies on directly: SIGPIPE (13) is ignored.
#[cfg(target_os = "linux")]
#[test]
fn sigpipe_is_ignored() {
    let mut port = Port::spawn(&["--no-realtime"]);
    port.send_frame(&request(0));
    port.next_frame(); // past its set-up
    let status = std::fs::read_to_string(format!("/proc/{}/status", port.child.id()))
        .expect("the port's /proc status");
    let ignored = status
        .lines()
        .find_map(|line| line.strip_prefix("SigIgn:"))
        .map(|mask| u64::from_str_radix(mask.trim(), 16).expect("a hex mask"))
        .expect("a SigIgn line");
    assert_ne!(ignored & (1 << (13 - 1)), 0, "SigIgn: {ignored:#x}");
}

#[test]
fn a_bad_command_line_exits_64_not_2() {
    for args in [
        &["--bogus"][..],
        &["--priority", "0"],
        &["--priority", "5", "--no-realtime"],
        &["--protocol", "3"],
        &["--strategy", "hybrid", "--spin", "1000"],
    ] {
        let port = Port::spawn(args);
        let (status, stderr) = port.wait();
        assert_eq!(status.code(), Some(64), "{args:?}: {stderr}");
        assert!(!stderr.is_empty());
    }
}

/// The real-time flags on whatever this platform is (Windows under Wine included): the
/// port serves with them, or, for a fixed priority only, exits 3 saying it was refused.
#[test]
fn serves_with_every_real_time_flag_or_refuses_a_fixed_priority_with_3() {
    let me = std::process::id().to_string();
    for args in [&[][..], &["--above", &me], &["--priority", "10"]] {
        let mut port = Port::spawn(args);
        port.send_frame(&request(1_000_000));
        match port.next_frame_within(common::PATIENCE) {
            Some(answer) => {
                assert!(slept(&answer) >= 1_000_000, "{args:?}");
                port.close_input();
                let (status, stderr) = port.wait();
                assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
            }
            None => {
                let (status, stderr) = port.wait();
                assert_eq!(args[0], "--priority", "{args:?}: {status:?} {stderr}");
                assert_eq!(status.code(), Some(3), "{stderr}");
                assert!(stderr.contains("--priority refused"), "{stderr}");
            }
        }
    }
}
