//! Protocol 2 on the wire (see `docs/port-protocol.md` for the byte-by-byte layout).
//!
//! A frame carries one or more messages back to back. Every message starts with a kind
//! byte and a 64-bit id; the kind fixes the rest of its length, but for TIMER's, whose
//! header gives the length of its text. All integers are big-endian.

use std::fmt;

mod probe;

pub use probe::{Band, Cost, Costs, ProbeFacts, BANDS_MAX, COSTS_MAX, SAMPLES_MAX};

/// Request kinds (client to port).
pub mod kind {
    /// Wake after a duration: id, duration ns (i64), spin ns (u32).
    pub const WAKE_AFTER: u8 = 0x01;
    /// Wake at a deadline on the port's clock: id, deadline ns (i64), spin ns (u32).
    pub const WAKE_AT: u8 = 0x02;
    /// Cancel a pending wake: id.
    pub const CANCEL: u8 = 0x03;
    /// Read the port's clock: id.
    pub const NOW: u8 = 0x04;
    /// Describe the timer the port's wakes wait on: id.
    pub const TIMER_INFO: u8 = 0x05;
    /// Time the OS's plain sleep in the port: id, samples (u32).
    pub const PROBE: u8 = 0x06;
    /// The verdict on costs the client timed: id, floor ns (u64), count (u8), then per
    /// cost its request ms (u32) and mean ns (u64).
    pub const VERDICT: u8 = 0x07;
    /// The cheat sheet of a quantum: id, quantum ns (u64), bands (u16).
    pub const CHEAT_SHEET: u8 = 0x08;
    /// Answer to a wake: id, deadline ns (i64), lateness ns (u64).
    pub const WOKE: u8 = 0x81;
    /// Answer to NOW: id, the port's clock in ns (i64).
    pub const CLOCK: u8 = 0x82;
    /// Answer to CANCEL: id, 1 if the wake was still pending, else 0.
    pub const CANCELLED: u8 = 0x83;
    /// Answer to TIMER_INFO: id, the timer's facts, then its mechanism and degradation as
    /// text (see [`TimerFacts`](super::TimerFacts)).
    pub const TIMER: u8 = 0x84;
    /// Answer to PROBE and VERDICT: id, quantum, overshoot and floor ns (u64), the count of
    /// costs and the length of the primitive's name (u8 each), the costs, the name (see
    /// [`ProbeFacts`](super::ProbeFacts)).
    pub const PROBED: u8 = 0x85;
    /// Answer to CHEAT_SHEET: id, count (u16), then per band k (u32), request ms (u64),
    /// cost ns (u64), rate Hz (f64).
    pub const SHEET: u8 = 0x86;
    /// A request the port could not serve: reason (u8), id-present flag (u8), id.
    pub const ERROR: u8 = 0xEE;
}

/// The length of the request `message` starts with, kind byte included; `None` for a kind
/// that is not a request. The kind fixes every request's length but VERDICT's, whose
/// header gives its count of costs: until `message` holds that header, VERDICT's length
/// is the header's.
pub fn request_len(message: &[u8]) -> Option<usize> {
    let &kind = message.first()?;
    match kind {
        kind::WAKE_AFTER | kind::WAKE_AT => Some(21),
        kind::CANCEL | kind::NOW | kind::TIMER_INFO => Some(9),
        kind::PROBE => Some(13),
        kind::CHEAT_SHEET => Some(19),
        kind::VERDICT => Some(probe::verdict_len(message)),
        _ => None,
    }
}

/// The bytes of a TIMER answer before its text, kind byte included.
pub const TIMER_HEADER_LEN: usize = 30;

/// The length of the answer `message` starts with, kind byte included; `None` for a kind
/// that is not an answer. The kind fixes every answer's length but TIMER's, whose header
/// gives the length of its text: until `message` holds that header, TIMER's length is the
/// header's.
pub fn answer_len(message: &[u8]) -> Option<usize> {
    let &kind = message.first()?;
    match kind {
        kind::WOKE => Some(25),
        kind::CLOCK => Some(17),
        kind::CANCELLED => Some(10),
        kind::ERROR => Some(11),
        kind::PROBED => Some(probe::probed_len(message)),
        kind::SHEET => Some(probe::sheet_len(message)),
        kind::TIMER => Some(match message.get(26..TIMER_HEADER_LEN) {
            Some(lengths) => {
                TIMER_HEADER_LEN
                    + usize::from(u16::from_be_bytes([lengths[0], lengths[1]]))
                    + usize::from(u16::from_be_bytes([lengths[2], lengths[3]]))
            }
            None => TIMER_HEADER_LEN,
        }),
        _ => None,
    }
}

/// Why a request got an error frame. The numbers are part of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Reason {
    /// A frame with no message in it.
    EmptyFrame = 1,
    /// A kind byte the port does not know; the rest of that frame is skipped, since its
    /// length is unknown.
    UnknownKind = 2,
    /// The frame ended inside a message.
    Truncated = 3,
    /// A wake whose id is already pending; the pending one stands.
    DuplicateId = 4,
    /// As many wakes are pending as the port accepts (`--max-pending`).
    TooManyPending = 5,
    /// A number outside what its request accepts: PROBE's samples outside
    /// 1..=[`SAMPLES_MAX`], CHEAT_SHEET's bands past [`BANDS_MAX`].
    OutOfRange = 6,
    /// A PROBE while the port's last one is still timing: two would spoil each other's costs.
    ProbeBusy = 7,
    /// The probe's thread could not be started.
    ProbeFailed = 8,
}

impl Reason {
    /// The reason with this code, if any.
    pub fn from_code(code: u8) -> Option<Reason> {
        Some(match code {
            1 => Reason::EmptyFrame,
            2 => Reason::UnknownKind,
            3 => Reason::Truncated,
            4 => Reason::DuplicateId,
            5 => Reason::TooManyPending,
            6 => Reason::OutOfRange,
            7 => Reason::ProbeBusy,
            8 => Reason::ProbeFailed,
            _ => return None,
        })
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::EmptyFrame => "empty frame",
            Reason::UnknownKind => "unknown message kind",
            Reason::Truncated => "message cut short by the end of its frame",
            Reason::DuplicateId => "id already pending",
            Reason::TooManyPending => "too many pending wakes",
            Reason::OutOfRange => "a number outside what the request accepts",
            Reason::ProbeBusy => "a probe is already running",
            Reason::ProbeFailed => "the probe's thread could not be started",
        })
    }
}

/// A request from the client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Request {
    /// Wake `duration_ns` after the port read the request (zero or less: at once).
    WakeAfter {
        /// The client's tag for this wake.
        id: u64,
        /// Nanoseconds from receipt to the deadline.
        duration_ns: i64,
        /// Nanoseconds before the deadline to stop sleeping and spin.
        spin_ns: u32,
    },
    /// Wake at `deadline_ns` on the port's clock (see [`Request::Now`]).
    WakeAt {
        /// The client's tag for this wake.
        id: u64,
        /// The deadline, in nanoseconds on the port's clock.
        deadline_ns: i64,
        /// Nanoseconds before the deadline to stop sleeping and spin.
        spin_ns: u32,
    },
    /// Cancel the pending wake `id`.
    Cancel {
        /// The wake to cancel.
        id: u64,
    },
    /// Read the port's clock, to relate it to the client's.
    Now {
        /// The client's tag for this reading.
        id: u64,
    },
    /// Describe the timer the port's wakes wait on.
    TimerInfo {
        /// The client's tag for this request.
        id: u64,
    },
    /// Time the OS's plain sleep (`punctual::quantum::probe`) on a thread of its own, so
    /// that wakes go on being served for the second or two it takes.
    Probe {
        /// The client's tag for this request.
        id: u64,
        /// Sleeps timed per request.
        samples: u32,
    },
    /// The verdict (`punctual::quantum::Probe::from_costs`) on costs the client timed.
    Verdict {
        /// The client's tag for this request.
        id: u64,
        /// The costs and the floor.
        costs: Costs,
    },
    /// The cheat sheet of a quantum (`punctual::quantum::cheat_sheet`).
    CheatSheet {
        /// The client's tag for this request.
        id: u64,
        /// The quantum, in nanoseconds.
        quantum_ns: u64,
        /// How many bands.
        bands: u16,
    },
}

/// The timer the port's timer thread waits on, as that thread uses it: the answer to
/// [`Request::TimerInfo`], punctual's `TimerInfo` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TimerFacts {
    /// The OS call the timer thread waits with, e.g. `futex(FUTEX_WAIT_BITSET) with an
    /// absolute CLOCK_MONOTONIC timeout`.
    pub mechanism: String,
    /// Whether it can wake at a finer grain than a scheduler tick.
    pub high_resolution: bool,
    /// The resolution the OS reports for its monotonic clock, where it reports one.
    pub resolution_ns: Option<u64>,
    /// The timer thread's timer slack in force (Linux; zero under a real-time policy).
    pub timer_slack_ns: Option<u64>,
    /// Why the timer is not the best this OS family offers, when it is not.
    pub degraded: Option<String>,
}

/// The most bytes of text a TIMER answer carries for its mechanism, and for its
/// degradation: far more than either ever says, and a message well inside a frame.
pub const TIMER_TEXT_MAX: usize = 1024;

impl TimerFacts {
    /// The facts, each text cut at a character boundary to at most [`TIMER_TEXT_MAX`]
    /// bytes, and an empty degradation taken as none (the wire cannot tell them apart).
    pub fn new(
        mechanism: &str,
        high_resolution: bool,
        resolution_ns: Option<u64>,
        timer_slack_ns: Option<u64>,
        degraded: Option<&str>,
    ) -> TimerFacts {
        TimerFacts {
            mechanism: clipped(mechanism).to_owned(),
            high_resolution,
            resolution_ns: resolution_ns.filter(|&ns| ns != NONE_NS),
            timer_slack_ns: timer_slack_ns.filter(|&ns| ns != NONE_NS),
            degraded: degraded
                .map(clipped)
                .filter(|d| !d.is_empty())
                .map(str::to_owned),
        }
    }
}

/// A duration the timer has none of: `u64::MAX` on the wire.
const NONE_NS: u64 = u64::MAX;

/// A TIMER answer's text, if it is one the port writes: UTF-8, and no longer than it clips.
fn timer_text(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes)
        .ok()
        .filter(|text| text.len() <= TIMER_TEXT_MAX)
}

fn clipped(text: &str) -> &str {
    let mut end = text.len().min(TIMER_TEXT_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// An answer from the port.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A wake fired.
    Woke {
        /// The wake's id.
        id: u64,
        /// Its deadline on the port's clock.
        deadline_ns: i64,
        /// How long after the deadline the port woke; never negative.
        lateness_ns: u64,
    },
    /// The port's clock.
    Clock {
        /// The NOW request's id.
        id: u64,
        /// Nanoseconds since the port's origin, read as the request was served.
        now_ns: i64,
    },
    /// A CANCEL was served.
    Cancelled {
        /// The id cancelled.
        id: u64,
        /// Whether that wake was still pending; if so it never answers.
        pending: bool,
    },
    /// The timer the port's wakes wait on.
    Timer {
        /// The TIMER_INFO request's id.
        id: u64,
        /// What the timer thread said of it.
        timer: TimerFacts,
    },
    /// A probe's costs and verdict.
    Probed {
        /// The PROBE or VERDICT request's id.
        id: u64,
        /// What the probe found.
        probe: ProbeFacts,
    },
    /// A cheat sheet.
    Sheet {
        /// The CHEAT_SHEET request's id.
        id: u64,
        /// Its bands, from k = 1.
        bands: Vec<Band>,
    },
    /// A request the port could not serve; it carries on with the next.
    Error {
        /// Why.
        reason: Reason,
        /// The offending request's id, when it got that far.
        id: Option<u64>,
    },
}

/// A message that could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// Why.
    pub reason: Reason,
    /// The id, when the message held one.
    pub id: Option<u64>,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn i64_at(bytes: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Splits a payload into messages whose lengths `len_of` reads from their first bytes:
/// yields `(kind, bytes)`, or the error that ends the frame.
fn split(
    payload: &[u8],
    len_of: fn(&[u8]) -> Option<usize>,
) -> impl Iterator<Item = Result<(u8, &[u8]), Malformed>> {
    let mut rest = payload;
    let mut first = true;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            let empty = std::mem::replace(&mut first, false);
            return empty.then_some(Err(Malformed {
                reason: Reason::EmptyFrame,
                id: None,
            }));
        }
        first = false;
        let kind = rest[0];
        let id = (rest.len() >= 9).then(|| u64_at(rest, 1));
        let failed = |reason| Some(Err(Malformed { reason, id }));
        let Some(len) = len_of(rest) else {
            rest = &[];
            return failed(Reason::UnknownKind);
        };
        if rest.len() < len {
            rest = &[];
            return failed(Reason::Truncated);
        }
        let (message, tail) = rest.split_at(len);
        rest = tail;
        Some(Ok((kind, message)))
    })
}

/// Decodes the requests in one frame's payload, in order. An error ends the frame when the
/// length of what follows is unknown (an unknown kind, a truncated message).
pub fn decode_requests(payload: &[u8]) -> impl Iterator<Item = Result<Request, Malformed>> + '_ {
    split(payload, request_len).map(|message| {
        let (kind, m) = message?;
        let id = u64_at(m, 1);
        Ok(match kind {
            kind::WAKE_AFTER => Request::WakeAfter {
                id,
                duration_ns: i64_at(m, 9),
                spin_ns: u32_at(m, 17),
            },
            kind::WAKE_AT => Request::WakeAt {
                id,
                deadline_ns: i64_at(m, 9),
                spin_ns: u32_at(m, 17),
            },
            kind::CANCEL => Request::Cancel { id },
            kind::NOW => Request::Now { id },
            kind::TIMER_INFO => Request::TimerInfo { id },
            kind::PROBE => Request::Probe {
                id,
                samples: u32_at(m, 9),
            },
            kind::VERDICT => Request::Verdict {
                id,
                costs: probe::decode_costs(m),
            },
            kind::CHEAT_SHEET => Request::CheatSheet {
                id,
                quantum_ns: u64_at(m, 9),
                bands: u16::from_be_bytes([m[17], m[18]]),
            },
            _ => {
                return Err(Malformed {
                    reason: Reason::UnknownKind,
                    id: Some(id),
                })
            }
        })
    })
}

/// Decodes the answers in one frame's payload, for clients and tests.
///
/// Strict: a flag byte other than 0 or 1, an id given with its flag clear, an unknown
/// error reason, text that is not UTF-8 or longer than [`TIMER_TEXT_MAX`], or a SHEET of
/// more than [`BANDS_MAX`] bands is not an answer the port sends, and reads as
/// [`Reason::UnknownKind`].
pub fn decode_answers(payload: &[u8]) -> impl Iterator<Item = Result<Answer, Malformed>> + '_ {
    split(payload, answer_len).map(|message| {
        let (kind, m) = message?;
        let unknown = Malformed {
            reason: Reason::UnknownKind,
            id: None,
        };
        let flag = |byte: u8| match byte {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(unknown),
        };
        Ok(match kind {
            kind::WOKE => Answer::Woke {
                id: u64_at(m, 1),
                deadline_ns: i64_at(m, 9),
                lateness_ns: u64_at(m, 17),
            },
            kind::CLOCK => Answer::Clock {
                id: u64_at(m, 1),
                now_ns: i64_at(m, 9),
            },
            kind::CANCELLED => Answer::Cancelled {
                id: u64_at(m, 1),
                pending: flag(m[9])?,
            },
            kind::TIMER => {
                let ns = |at| Some(u64_at(m, at)).filter(|&ns| ns != NONE_NS);
                let text_len = usize::from(u16::from_be_bytes([m[26], m[27]]));
                let (mechanism, degraded) = m[TIMER_HEADER_LEN..].split_at(text_len);
                let text = |bytes| timer_text(bytes).ok_or(unknown);
                Answer::Timer {
                    id: u64_at(m, 1),
                    timer: TimerFacts {
                        mechanism: text(mechanism)?.to_owned(),
                        high_resolution: flag(m[9])?,
                        resolution_ns: ns(10),
                        timer_slack_ns: ns(18),
                        degraded: Some(text(degraded)?)
                            .filter(|d| !d.is_empty())
                            .map(str::to_owned),
                    },
                }
            }
            kind::PROBED => Answer::Probed {
                id: u64_at(m, 1),
                probe: probe::decode_probed(m).ok_or(unknown)?,
            },
            kind::SHEET => Answer::Sheet {
                id: u64_at(m, 1),
                bands: probe::decode_sheet(m).ok_or(unknown)?,
            },
            kind::ERROR => {
                let reason = Reason::from_code(m[1]).ok_or(unknown)?;
                let id = u64_at(m, 3);
                match (flag(m[2])?, id) {
                    (true, id) => Answer::Error {
                        reason,
                        id: Some(id),
                    },
                    (false, 0) => Answer::Error { reason, id: None },
                    (false, _) => return Err(unknown),
                }
            }
            _ => return Err(unknown),
        })
    })
}

impl Request {
    /// Appends the request's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            Request::Probe { id, samples } => {
                out.push(kind::PROBE);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&samples.to_be_bytes());
            }
            Request::Verdict { id, ref costs } => probe::encode_verdict(id, costs, out),
            Request::CheatSheet {
                id,
                quantum_ns,
                bands,
            } => {
                out.push(kind::CHEAT_SHEET);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&quantum_ns.to_be_bytes());
                out.extend_from_slice(&bands.to_be_bytes());
            }
            Request::WakeAfter {
                id,
                duration_ns: ns,
                spin_ns,
            }
            | Request::WakeAt {
                id,
                deadline_ns: ns,
                spin_ns,
            } => {
                let kind = match self {
                    Request::WakeAfter { .. } => kind::WAKE_AFTER,
                    _ => kind::WAKE_AT,
                };
                out.push(kind);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&ns.to_be_bytes());
                out.extend_from_slice(&spin_ns.to_be_bytes());
            }
            Request::Cancel { id } => {
                out.push(kind::CANCEL);
                out.extend_from_slice(&id.to_be_bytes());
            }
            Request::Now { id } => {
                out.push(kind::NOW);
                out.extend_from_slice(&id.to_be_bytes());
            }
            Request::TimerInfo { id } => {
                out.push(kind::TIMER_INFO);
                out.extend_from_slice(&id.to_be_bytes());
            }
        }
    }
}

impl Answer {
    /// Appends the answer's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Answer::Woke {
                id,
                deadline_ns,
                lateness_ns,
            } => {
                out.push(kind::WOKE);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&deadline_ns.to_be_bytes());
                out.extend_from_slice(&lateness_ns.to_be_bytes());
            }
            Answer::Clock { id, now_ns } => {
                out.push(kind::CLOCK);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&now_ns.to_be_bytes());
            }
            Answer::Cancelled { id, pending } => {
                out.push(kind::CANCELLED);
                out.extend_from_slice(&id.to_be_bytes());
                out.push(u8::from(*pending));
            }
            Answer::Timer { id, timer } => {
                let mechanism = clipped(&timer.mechanism);
                let degraded = clipped(timer.degraded.as_deref().unwrap_or(""));
                let text_len = |text: &str| u16::try_from(text.len()).expect("clipped text");
                out.push(kind::TIMER);
                out.extend_from_slice(&id.to_be_bytes());
                out.push(u8::from(timer.high_resolution));
                for ns in [timer.resolution_ns, timer.timer_slack_ns] {
                    out.extend_from_slice(&ns.unwrap_or(NONE_NS).to_be_bytes());
                }
                out.extend_from_slice(&text_len(mechanism).to_be_bytes());
                out.extend_from_slice(&text_len(degraded).to_be_bytes());
                out.extend_from_slice(mechanism.as_bytes());
                out.extend_from_slice(degraded.as_bytes());
            }
            Answer::Probed { id, probe } => probe::encode_probed(*id, probe, out),
            Answer::Sheet { id, bands } => probe::encode_sheet(*id, bands, out),
            Answer::Error { reason, id } => {
                out.push(kind::ERROR);
                out.push(*reason as u8);
                out.push(u8::from(id.is_some()));
                out.extend_from_slice(&id.unwrap_or(0).to_be_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_have_their_documented_length() {
        let requests = [
            Request::WakeAfter {
                id: 1,
                duration_ns: -3,
                spin_ns: 250_000,
            },
            Request::WakeAt {
                id: u64::MAX,
                deadline_ns: i64::MIN,
                spin_ns: u32::MAX,
            },
            Request::Cancel { id: 7 },
            Request::Now { id: 0 },
            Request::TimerInfo { id: 9 },
        ];
        let mut payload = Vec::new();
        for request in &requests {
            let before = payload.len();
            request.encode(&mut payload);
            assert_eq!(
                Some(payload.len() - before),
                request_len(&payload[before..]),
                "{request:?}"
            );
        }
        let decoded: Vec<_> = decode_requests(&payload).collect();
        assert_eq!(decoded, requests.map(Ok));
    }

    #[test]
    fn answers_round_trip() {
        let answers = [
            Answer::Woke {
                id: 3,
                deadline_ns: -1,
                lateness_ns: u64::MAX,
            },
            Answer::Clock { id: 4, now_ns: 99 },
            Answer::Cancelled {
                id: 5,
                pending: true,
            },
            Answer::Error {
                reason: Reason::DuplicateId,
                id: Some(6),
            },
            Answer::Error {
                reason: Reason::EmptyFrame,
                id: None,
            },
            Answer::Timer {
                id: 7,
                timer: TimerFacts::new("futex", true, Some(1), Some(0), Some("slack refused")),
            },
            Answer::Timer {
                id: 8,
                timer: TimerFacts::new("std::thread::sleep", false, None, None, None),
            },
        ];
        let mut payload = Vec::new();
        for answer in &answers {
            let before = payload.len();
            answer.encode(&mut payload);
            assert_eq!(
                answer_len(&payload[before..]),
                Some(payload.len() - before),
                "{answer:?}"
            );
        }
        let decoded: Vec<_> = decode_answers(&payload).collect();
        assert_eq!(decoded, answers.map(Ok));
    }

    #[test]
    fn bad_frames_say_why_and_keep_the_id_when_they_can() {
        let empty: Vec<_> = decode_requests(&[]).collect();
        assert_eq!(
            empty,
            [Err(Malformed {
                reason: Reason::EmptyFrame,
                id: None
            })]
        );

        let mut payload = Vec::new();
        Request::Now { id: 1 }.encode(&mut payload);
        payload.push(0x7F);
        payload.extend_from_slice(&42u64.to_be_bytes());
        Request::Now { id: 2 }.encode(&mut payload); // skipped: after an unknown kind
        let decoded: Vec<_> = decode_requests(&payload).collect();
        assert_eq!(
            decoded,
            [
                Ok(Request::Now { id: 1 }),
                Err(Malformed {
                    reason: Reason::UnknownKind,
                    id: Some(42)
                })
            ]
        );

        let truncated: Vec<_> =
            decode_requests(&[kind::WAKE_AT, 0, 0, 0, 0, 0, 0, 0, 9, 1]).collect();
        assert_eq!(
            truncated,
            [Err(Malformed {
                reason: Reason::Truncated,
                id: Some(9)
            })]
        );
        let no_id: Vec<_> = decode_requests(&[kind::CANCEL, 0, 0]).collect();
        assert_eq!(
            no_id,
            [Err(Malformed {
                reason: Reason::Truncated,
                id: None
            })]
        );
    }

    #[test]
    fn a_timer_answer_is_as_long_as_its_header_says_and_its_text_is_utf8() {
        let mut payload = Vec::new();
        Answer::Timer {
            id: 1,
            timer: TimerFacts::new("kqueue", true, None, None, None),
        }
        .encode(&mut payload);
        assert_eq!(payload.len(), TIMER_HEADER_LEN + "kqueue".len());
        // Cut anywhere, the header's length is what it needs, then the whole message.
        assert_eq!(answer_len(&payload[..3]), Some(TIMER_HEADER_LEN));
        assert_eq!(
            answer_len(&payload[..TIMER_HEADER_LEN]),
            Some(payload.len())
        );
        let cut: Vec<_> = decode_answers(&payload[..payload.len() - 1]).collect();
        assert_eq!(
            cut,
            [Err(Malformed {
                reason: Reason::Truncated,
                id: Some(1)
            })]
        );
        let last = payload.len() - 1;
        payload[last] = 0xFF;
        let garbled: Vec<_> = decode_answers(&payload).collect();
        assert!(matches!(garbled[..], [Err(_)]), "{garbled:?}");

        // Longer than the port ever writes: not an answer it sends (its encoder would clip
        // it, so it could not be re-encoded to the same bytes).
        let mut long = payload[..TIMER_HEADER_LEN].to_vec();
        let over = u16::try_from(TIMER_TEXT_MAX + 1).unwrap();
        long[26..28].copy_from_slice(&over.to_be_bytes());
        long.extend(std::iter::repeat_n(b'a', TIMER_TEXT_MAX + 1));
        let refused: Vec<_> = decode_answers(&long).collect();
        assert!(matches!(refused[..], [Err(_)]), "{refused:?}");
    }

    #[test]
    fn timer_text_is_cut_to_its_limit_on_a_character_boundary() {
        let long = "é".repeat(TIMER_TEXT_MAX);
        let facts = TimerFacts::new(&long, true, Some(u64::MAX), None, Some(""));
        assert!(facts.mechanism.len() <= TIMER_TEXT_MAX);
        assert!(facts.mechanism.len() > TIMER_TEXT_MAX - 2);
        assert_eq!(
            (facts.resolution_ns, facts.degraded.as_deref()),
            (None, None)
        );
        let answer = Answer::Timer {
            id: 2,
            timer: facts,
        };
        let mut payload = Vec::new();
        answer.encode(&mut payload);
        let decoded: Vec<_> = decode_answers(&payload).collect();
        assert_eq!(decoded, [Ok(answer)]);
    }

    #[test]
    fn an_answer_kind_sent_as_a_request_is_an_unknown_kind() {
        let mut payload = Vec::new();
        Answer::Clock { id: 8, now_ns: 0 }.encode(&mut payload);
        let decoded: Vec<_> = decode_requests(&payload).collect();
        assert_eq!(
            decoded,
            [Err(Malformed {
                reason: Reason::UnknownKind,
                id: Some(8)
            })]
        );
    }
}
