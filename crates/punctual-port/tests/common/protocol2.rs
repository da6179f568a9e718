//! What the protocol 2 suites share: a port speaking it, requests out, answers in.

use punctual_port::protocol2::wire::{decode_answers, Answer, Request};

use super::Port;

/// A sane lateness: a wake that fired, not one that was lost and found much later.
pub const SANE: u64 = 10_000_000_000;

/// A port speaking protocol 2, at normal priority, with `extra` flags.
pub fn port(extra: &[&str]) -> Port {
    Port::spawn(&[&["--no-realtime", "--protocol", "2"], extra].concat())
}

/// Sends `requests` in one frame.
pub fn send(port: &mut Port, requests: &[Request]) {
    port.send_frame(&encode(requests));
}

/// `requests` back to back, as the payload of one frame.
pub fn encode(requests: &[Request]) -> Vec<u8> {
    let mut payload = Vec::new();
    for request in requests {
        request.encode(&mut payload);
    }
    payload
}

/// The answers of one frame.
pub fn decode(frame: &[u8]) -> Vec<Answer> {
    decode_answers(frame)
        .map(|answer| answer.expect("a well-formed answer"))
        .collect()
}

/// The next `n` answers, however they were packed into frames.
pub fn answers(port: &Port, n: usize) -> Vec<Answer> {
    answers_by_frame(port, n)
        .into_iter()
        .map(|(_, a)| a)
        .collect()
}

/// The next `n` answers, each with the number of the frame it came in (0 for the first).
pub fn answers_by_frame(port: &Port, n: usize) -> Vec<(usize, Answer)> {
    let mut got = Vec::new();
    let mut frame_number = 0;
    while got.len() < n {
        let frame = port.next_frame();
        got.extend(decode(&frame).into_iter().map(|a| (frame_number, a)));
        frame_number += 1;
    }
    assert_eq!(got.len(), n, "more answers than asked for: {got:?}");
    got
}

/// The port's clock, read with a NOW.
pub fn now_ns(port: &mut Port) -> i64 {
    send(port, &[Request::Now { id: u64::MAX }]);
    match answers(port, 1)[..] {
        [Answer::Clock { id, now_ns }] if id == u64::MAX => now_ns,
        ref other => panic!("expected the clock, got {other:?}"),
    }
}

/// A fired wake's fields, or a panic naming what came instead.
pub fn woke(answer: &Answer) -> (u64, i64, u64) {
    match *answer {
        Answer::Woke {
            id,
            deadline_ns,
            lateness_ns,
        } => (id, deadline_ns, lateness_ns),
        ref other => panic!("expected a wake, got {other:?}"),
    }
}
