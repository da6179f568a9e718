//! Any bytes through the frame reader and both protocols' decoders: no panic, and what
//! decodes re-encodes to the very bytes it came from.

#![no_main]

use libfuzzer_sys::fuzz_target;
use punctual_port::frame::{FrameReader, FrameWriter, MAX_PAYLOAD};
use punctual_port::protocol1::wire as p1;
use punctual_port::protocol2::wire::{answer_len, decode_answers, decode_requests};

fuzz_target!(|data: &[u8]| {
    let mut frames = FrameReader::new(data);
    let mut consumed = 0;
    loop {
        match frames.next_frame() {
            Ok(Some(payload)) => {
                consumed += 2 + payload.len();
                assert!(payload.len() <= MAX_PAYLOAD);
                check_protocol1(payload);
                check_requests(payload);
                check_answers(payload);
            }
            Ok(None) => {
                // Only a partial header (0 or 1 byte) is left.
                assert!(data.len() - consumed < 2);
                break;
            }
            Err(short) => {
                assert!(short.got < short.length);
                assert_eq!(consumed + 2 + short.got, data.len());
                break;
            }
        }
    }
});

fn check_protocol1(payload: &[u8]) {
    let decoded = p1::decode_request(payload);
    assert_eq!(decoded.is_ok(), payload.len() == p1::PAYLOAD_LEN);
    assert_eq!(p1::check_length(payload.len()).is_ok(), decoded.is_ok());
    if let Ok(ns) = decoded {
        assert_eq!(ns.to_be_bytes(), payload);
        let _ = p1::requested(ns);
    }
}

fn check_requests(payload: &[u8]) {
    let mut reencoded = Vec::new();
    let mut ended = false;
    for decoded in decode_requests(payload) {
        assert!(!ended, "a message after the error that ends a frame");
        match decoded {
            Ok(request) => request.encode(&mut reencoded),
            Err(_) => ended = true,
        }
    }
    assert_eq!(reencoded, payload[..reencoded.len()]);
    assert!(ended || reencoded.len() == payload.len());

    // What decodes also survives being packed into frames again.
    let mut out = Vec::new();
    let mut writer = FrameWriter::new(&mut out);
    writer.push(&reencoded);
    writer.flush().expect("a Vec takes any write");
    let mut again = FrameReader::new(&out[..]);
    let mut repacked = Vec::new();
    while let Ok(Some(frame)) = again.next_frame() {
        repacked.extend_from_slice(frame);
    }
    assert_eq!(repacked, reencoded);
}

fn check_answers(payload: &[u8]) {
    let mut at = 0;
    let mut ended = false;
    for decoded in decode_answers(payload) {
        assert!(!ended, "a message after the error that ends a frame");
        let whole = payload
            .get(at..)
            .and_then(answer_len)
            .filter(|len| at + len <= payload.len());
        match (decoded, whole) {
            (Ok(answer), Some(len)) => {
                let mut reencoded = Vec::new();
                answer.encode(&mut reencoded);
                assert_eq!(reencoded, payload[at..at + len]);
                at += len;
            }
            (Ok(answer), None) => panic!("{answer:?} decoded from a partial message"),
            // A known kind with a value the port never sends: skipped, the frame goes on.
            (Err(_), Some(len)) => at += len,
            (Err(_), None) => ended = true,
        }
    }
    assert!(ended || at == payload.len());
}
