//! Protocol 2's back-pressure: a client that stops reading the answers. The port must stop
//! reading requests (so the client's writes block, as on any full pipe) rather than hold
//! every request and answer in memory, and must lose none of them.

mod common;

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::protocol2::{decode, encode};
use common::{Port, PATIENCE};
use punctual_port::frame::push_frame;
use punctual_port::protocol2::wire::{Answer, Request};

/// How many requests the flood writes at most: far more than the port holds in memory.
const FLOOD_REQUESTS: u64 = 4_000_000;

/// Requests a chunk of the flood carries: 16 full frames of alternating NOW (9 bytes) and
/// WAKE_AFTER 0 ns (21 bytes), each answered at once.
const PER_FRAME: u64 = 65_535 / 30 * 2;
const PER_CHUNK: u64 = 16 * PER_FRAME;

fn chunk(first_id: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    for frame in 0..PER_CHUNK / PER_FRAME {
        let start = first_id + frame * PER_FRAME;
        let requests: Vec<Request> = (start..start + PER_FRAME)
            .map(|id| {
                if id % 2 == 0 {
                    Request::Now { id }
                } else {
                    Request::WakeAfter {
                        id,
                        duration_ns: 0,
                        spin_ns: 0,
                    }
                }
            })
            .collect();
        push_frame(&mut bytes, &encode(&requests));
    }
    bytes
}

/// Fewer requests than this go in while nobody reads the answers: the two pipes, the
/// reader's buffer, and twice the inbox's 65,536 (one lot it holds, one the timer thread
/// has taken) come to about 170,000 of the flood's, and the writer counts whole chunks.
/// Without back-pressure the port took 1.9 million in 2 s (a debug build).
const HELD_BOUND: u64 = 500_000;

/// How a flood went.
struct Flood {
    /// Requests whose write went through while nobody read the answers.
    written_unread: u64,
    /// Requests written in all, every one answered.
    written: u64,
}

/// Floods a port nobody reads for `unread`, calling `sample` with the port's pid every
/// 20 ms meanwhile; then reads every answer, checking each request has exactly one.
fn flood_without_reading(unread: Duration, mut sample: impl FnMut(u32)) -> Flood {
    let mut port = Port::spawn_unread(&["--no-realtime", "--protocol", "2"]);
    let pid = port.child.id();
    let mut input = port.take_input();
    let stop_writing = Instant::now() + unread;
    let progress = Arc::new(AtomicU64::new(0));
    let writer_progress = Arc::clone(&progress);
    let writer = thread::spawn(move || {
        let mut written = 0;
        while written < FLOOD_REQUESTS && Instant::now() < stop_writing {
            input.write_all(&chunk(written)).expect("write to the port");
            written += PER_CHUNK;
            writer_progress.store(written, Ordering::Relaxed);
        }
        (input, written)
    });
    while Instant::now() < stop_writing {
        sample(pid);
        thread::sleep(Duration::from_millis(20));
    }
    let written_unread = progress.load(Ordering::Relaxed);
    assert!(
        written_unread < HELD_BOUND,
        "{written_unread} requests went in while nobody read the answers"
    );
    port.start_reading();
    // The writer ends once its last write goes through, which the reading allows.
    let (input, written) = writer.join().expect("the writer");
    let mut answered = vec![false; usize::try_from(written).unwrap()];
    let mut count = 0;
    while count < written {
        let frame = port
            .next_frame_within(PATIENCE)
            .unwrap_or_else(|| panic!("{count} of {written} answers, then none for {PATIENCE:?}"));
        for answer in decode(&frame) {
            let id = match answer {
                Answer::Clock { id, .. } if id % 2 == 0 => id,
                Answer::Woke { id, .. } if id % 2 == 1 => id,
                other => panic!("not an answer to the flood: {other:?}"),
            };
            let seen = &mut answered[usize::try_from(id).unwrap()];
            assert!(!*seen, "id {id} answered twice");
            *seen = true;
            count += 1;
        }
        sample(pid);
    }
    drop(input);
    let (status, stderr) = port.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    Flood {
        written_unread,
        written,
    }
}

#[test]
fn answers_held_back_by_an_unread_output_all_arrive() {
    let flood = flood_without_reading(Duration::from_secs(2), |_| {});
    println!(
        "{} requests written unread, {} in all, every one answered",
        flood.written_unread, flood.written
    );
}

/// A port held back by a client that does not read is not stuck: when the client goes
/// without reading, the port's waiting write fails and it exits 0.
#[test]
fn a_port_nobody_reads_exits_when_its_output_closes() {
    let mut port = Port::spawn_unread(&["--no-realtime", "--protocol", "2"]);
    let mut input = port.take_input();
    let writer = thread::spawn(move || {
        let mut written = 0;
        // Until the port has stopped reading and then gone: the write fails.
        while written < FLOOD_REQUESTS && input.write_all(&chunk(written)).is_ok() {
            written += PER_CHUNK;
        }
        written
    });
    thread::sleep(Duration::from_secs(1));
    port.close_output_unread();
    let status = common::wait_exit(&mut port.child, PATIENCE).expect("the port exits");
    assert_eq!(status.code(), Some(0));
    let written = writer.join().expect("the writer");
    assert!(written < HELD_BOUND, "{written} requests went in unread");
}

/// The port's resident memory, from the kernel's account of it.
fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The bound on the port's resident memory while nobody reads it: a few MB of requests
/// and answers in flight (65,536 requests wait for the timer thread at most, see
/// docs/port-protocol.md) over the program's own. Without back-pressure it passes
/// 60 MB within the first million requests.
const RESIDENT_BOUND_BYTES: u64 = 32 * 1024 * 1024;

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "reads the port's VmRSS from /proc/PID/status"
)]
fn an_unread_output_stops_the_port_reading_within_bounded_memory() {
    let mut peak_bytes = 0;
    let flood = flood_without_reading(Duration::from_secs(5), |pid| {
        if let Some(bytes) = resident_bytes(pid) {
            assert!(
                bytes < RESIDENT_BOUND_BYTES,
                "the port reached {bytes} bytes resident"
            );
            peak_bytes = peak_bytes.max(bytes);
        }
    });
    println!(
        "{} requests written unread, {} in all, every one answered; peak VmRSS {peak_bytes} bytes",
        flood.written_unread, flood.written
    );
    assert!(peak_bytes > 0, "VmRSS never read");
}
