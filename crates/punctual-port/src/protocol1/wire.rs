//! Protocol 1 on the wire, byte-compatible with nanosleep 0.3 (see `docs/port-protocol.md`).
//!
//! A request is a frame of exactly 8 bytes: a signed 64-bit big-endian count of
//! nanoseconds. An answer is a frame of 8 bytes: the unsigned 64-bit big-endian
//! nanoseconds actually slept.

use std::fmt;
use std::time::Duration;

/// The payload length of every request and answer.
pub const PAYLOAD_LEN: usize = 8;

/// A request frame that protocol 1 does not accept: the program exits 2 on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongLength(pub usize);

impl fmt::Display for WrongLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a frame of length {}: protocol 1 requests are exactly {PAYLOAD_LEN} bytes",
            self.0
        )
    }
}

impl std::error::Error for WrongLength {}

/// Checks the length a header announced before the payload is read, as nanosleep does.
///
/// # Errors
///
/// [`WrongLength`] for anything but 8.
pub fn check_length(length: usize) -> Result<(), WrongLength> {
    if length == PAYLOAD_LEN {
        Ok(())
    } else {
        Err(WrongLength(length))
    }
}

/// The nanoseconds a request payload asks for; zero or less means "answer at once".
///
/// # Errors
///
/// [`WrongLength`] unless the payload is 8 bytes.
pub fn decode_request(payload: &[u8]) -> Result<i64, WrongLength> {
    let bytes: [u8; PAYLOAD_LEN] = payload.try_into().map_err(|_| WrongLength(payload.len()))?;
    Ok(i64::from_be_bytes(bytes))
}

/// How long a request asks to sleep: nothing for zero or a negative count.
pub fn requested(ns: i64) -> Duration {
    Duration::from_nanos(u64::try_from(ns).unwrap_or(0))
}

/// The whole answer frame (header included) for `slept`, saturating at `u64::MAX` ns.
pub fn encode_answer(slept: Duration) -> [u8; 2 + PAYLOAD_LEN] {
    let ns = punctual::saturating_nanos(slept);
    let mut frame = [0u8; 2 + PAYLOAD_LEN];
    frame[..2].copy_from_slice(&(PAYLOAD_LEN as u16).to_be_bytes());
    frame[2..].copy_from_slice(&ns.to_be_bytes());
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_signed_big_endian() {
        assert_eq!(decode_request(&[0, 0, 0, 0, 0, 0, 1, 0]), Ok(256));
        assert_eq!(decode_request(&[0xFF; 8]), Ok(-1));
        assert_eq!(decode_request(&[1, 2, 3]), Err(WrongLength(3)));
        assert_eq!(requested(-5), Duration::ZERO);
        assert_eq!(requested(1_500), Duration::from_nanos(1_500));
    }

    #[test]
    fn answers_are_unsigned_big_endian_frames() {
        assert_eq!(
            encode_answer(Duration::from_nanos(0x0102)),
            [0, 8, 0, 0, 0, 0, 0, 0, 1, 2]
        );
        assert_eq!(encode_answer(Duration::MAX)[2..], [0xFF; 8]);
        assert_eq!(check_length(8), Ok(()));
        assert_eq!(check_length(9), Err(WrongLength(9)));
    }
}
