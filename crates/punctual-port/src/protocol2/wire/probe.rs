//! The probe's messages: PROBE, VERDICT and CHEAT_SHEET, answered with PROBED and SHEET
//! (see `docs/port-protocol.md`). Decoders here get whole messages, their lengths checked
//! by the caller against [`verdict_len`], [`probed_len`] and [`sheet_len`].

use super::{kind, u32_at, u64_at};

/// The most sleeps a PROBE times per request: the clients' own limit.
pub const SAMPLES_MAX: u32 = 1_000;

/// The most bands a CHEAT_SHEET asks for: its answer stays well inside a frame.
pub const BANDS_MAX: u16 = 1_000;

/// The most costs a VERDICT or PROBED carries: their count is one byte.
pub const COSTS_MAX: usize = u8::MAX as usize;

/// The most bytes of the primitive's name a PROBED carries: its length is one byte.
const PRIMITIVE_MAX: usize = u8::MAX as usize;

/// A duration the probe has none of: `u64::MAX` on the wire.
const NONE_NS: u64 = u64::MAX;

const VERDICT_HEADER_LEN: usize = 18;
const PROBED_HEADER_LEN: usize = 35;
const SHEET_HEADER_LEN: usize = 11;
const COST_LEN: usize = 12;
const BAND_LEN: usize = 28;

/// One request and its mean back-to-back cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cost {
    /// The sleep asked for, in milliseconds.
    pub request_ms: u32,
    /// Its mean cost, in nanoseconds.
    pub mean_ns: u64,
}

/// Costs a client timed: the body of a VERDICT.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Costs {
    /// The least any one timed sleep cost, in nanoseconds.
    pub floor_ns: u64,
    /// Each request with its mean cost; at most [`COSTS_MAX`] are sent.
    pub costs: Vec<Cost>,
}

/// A probe's costs and verdict on the wire: `punctual::quantum::Probe`, and the name of
/// what was timed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProbeFacts {
    /// The sleep quantum, when sleeps are quantised.
    pub quantum_ns: Option<u64>,
    /// Without a quantum: the median cost past the request.
    pub overshoot_ns: Option<u64>,
    /// The least any one sleep cost.
    pub floor_ns: u64,
    /// Each request with its mean cost; at most [`COSTS_MAX`] are sent.
    pub costs: Vec<Cost>,
    /// The OS call timed (`punctual::quantum::PLAIN_SLEEP`) for a PROBE; empty for a
    /// VERDICT, whose sleep was the client's. Cut to 255 bytes on the wire.
    pub primitive: String,
}

/// One band of a cheat sheet: `punctual::quantum::Band` on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// The number of quanta, from 1.
    pub k: u32,
    /// The request in the middle of the band.
    pub request_ms: u64,
    /// What such a sleep costs: `k` quanta.
    pub cost_ns: u64,
    /// How many such sleeps fit in a second.
    pub rate_hz: f64,
}

/// VERDICT's length, from its header once `message` holds it.
pub(super) fn verdict_len(message: &[u8]) -> usize {
    match message.get(VERDICT_HEADER_LEN - 1) {
        Some(&count) => VERDICT_HEADER_LEN + COST_LEN * usize::from(count),
        None => VERDICT_HEADER_LEN,
    }
}

/// PROBED's length, from its header once `message` holds it.
pub(super) fn probed_len(message: &[u8]) -> usize {
    match message.get(PROBED_HEADER_LEN - 2..PROBED_HEADER_LEN) {
        Some(&[count, text_len]) => {
            PROBED_HEADER_LEN + COST_LEN * usize::from(count) + usize::from(text_len)
        }
        _ => PROBED_HEADER_LEN,
    }
}

/// SHEET's length, from its header once `message` holds it.
pub(super) fn sheet_len(message: &[u8]) -> usize {
    match message.get(SHEET_HEADER_LEN - 2..SHEET_HEADER_LEN) {
        Some(&[hi, lo]) => SHEET_HEADER_LEN + BAND_LEN * usize::from(u16::from_be_bytes([hi, lo])),
        _ => SHEET_HEADER_LEN,
    }
}

fn decode_cost_list(bytes: &[u8]) -> Vec<Cost> {
    bytes
        .chunks_exact(COST_LEN)
        .map(|c| Cost {
            request_ms: u32_at(c, 0),
            mean_ns: u64_at(c, 4),
        })
        .collect()
}

fn encode_cost_list(costs: &[Cost], out: &mut Vec<u8>) {
    for cost in costs.iter().take(COSTS_MAX) {
        out.extend_from_slice(&cost.request_ms.to_be_bytes());
        out.extend_from_slice(&cost.mean_ns.to_be_bytes());
    }
}

fn count_of(costs: &[Cost]) -> u8 {
    u8::try_from(costs.len()).unwrap_or(u8::MAX)
}

/// A whole VERDICT's costs.
pub(super) fn decode_costs(m: &[u8]) -> Costs {
    Costs {
        floor_ns: u64_at(m, 9),
        costs: decode_cost_list(&m[VERDICT_HEADER_LEN..]),
    }
}

pub(super) fn encode_verdict(id: u64, costs: &Costs, out: &mut Vec<u8>) {
    out.push(kind::VERDICT);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&costs.floor_ns.to_be_bytes());
    out.push(count_of(&costs.costs));
    encode_cost_list(&costs.costs, out);
}

/// A whole PROBED's facts; `None` when its name is not UTF-8.
pub(super) fn decode_probed(m: &[u8]) -> Option<ProbeFacts> {
    let reported = |at| Some(u64_at(m, at)).filter(|&ns| ns != NONE_NS);
    let costs_end = PROBED_HEADER_LEN + COST_LEN * usize::from(m[33]);
    Some(ProbeFacts {
        quantum_ns: reported(9),
        overshoot_ns: reported(17),
        floor_ns: u64_at(m, 25),
        costs: decode_cost_list(&m[PROBED_HEADER_LEN..costs_end]),
        primitive: std::str::from_utf8(&m[costs_end..]).ok()?.to_owned(),
    })
}

pub(super) fn encode_probed(id: u64, probe: &ProbeFacts, out: &mut Vec<u8>) {
    let mut end = probe.primitive.len().min(PRIMITIVE_MAX);
    while !probe.primitive.is_char_boundary(end) {
        end -= 1;
    }
    let primitive = &probe.primitive[..end];
    out.push(kind::PROBED);
    out.extend_from_slice(&id.to_be_bytes());
    for ns in [probe.quantum_ns, probe.overshoot_ns] {
        out.extend_from_slice(&ns.unwrap_or(NONE_NS).to_be_bytes());
    }
    out.extend_from_slice(&probe.floor_ns.to_be_bytes());
    out.push(count_of(&probe.costs));
    out.push(u8::try_from(primitive.len()).unwrap_or(u8::MAX));
    encode_cost_list(&probe.costs, out);
    out.extend_from_slice(primitive.as_bytes());
}

/// A whole SHEET's bands; `None` for more than [`BANDS_MAX`], which the port never sends.
pub(super) fn decode_sheet(m: &[u8]) -> Option<Vec<Band>> {
    let bands = &m[SHEET_HEADER_LEN..];
    if bands.len() > BAND_LEN * usize::from(BANDS_MAX) {
        return None;
    }
    let bands = bands
        .chunks_exact(BAND_LEN)
        .map(|b| Band {
            k: u32_at(b, 0),
            request_ms: u64_at(b, 4),
            cost_ns: u64_at(b, 12),
            rate_hz: f64::from_bits(u64_at(b, 20)),
        })
        .collect();
    Some(bands)
}

/// Encodes at most [`BANDS_MAX`] bands.
pub(super) fn encode_sheet(id: u64, bands: &[Band], out: &mut Vec<u8>) {
    let bands = &bands[..bands.len().min(usize::from(BANDS_MAX))];
    out.push(kind::SHEET);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(
        &u16::try_from(bands.len())
            .unwrap_or(BANDS_MAX)
            .to_be_bytes(),
    );
    for band in bands {
        out.extend_from_slice(&band.k.to_be_bytes());
        out.extend_from_slice(&band.request_ms.to_be_bytes());
        out.extend_from_slice(&band.cost_ns.to_be_bytes());
        out.extend_from_slice(&band.rate_hz.to_bits().to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{answer_len, decode_answers, decode_requests, request_len};
    use super::super::{Answer, Malformed, Reason, Request};
    use super::*;

    fn costs(n: u32) -> Vec<Cost> {
        (1..=n)
            .map(|ms| Cost {
                request_ms: ms,
                mean_ns: u64::from(ms) * 1_000_000 + 55_000,
            })
            .collect()
    }

    #[test]
    fn probe_requests_round_trip_and_have_their_documented_length() {
        let requests = [
            Request::Probe { id: 1, samples: 5 },
            Request::Verdict {
                id: 2,
                costs: Costs {
                    floor_ns: 1_000_001,
                    costs: costs(8),
                },
            },
            Request::Verdict {
                id: 3,
                costs: Costs {
                    floor_ns: 0,
                    costs: Vec::new(),
                },
            },
            Request::CheatSheet {
                id: u64::MAX,
                quantum_ns: 15_625_000,
                bands: 10,
            },
        ];
        let mut payload = Vec::new();
        for request in &requests {
            let before = payload.len();
            request.encode(&mut payload);
            assert_eq!(
                request_len(&payload[before..]),
                Some(payload.len() - before),
                "{request:?}"
            );
        }
        assert_eq!(request_len(&[kind::VERDICT]), Some(VERDICT_HEADER_LEN));
        let decoded: Vec<_> = decode_requests(&payload).collect();
        assert_eq!(decoded, requests.map(Ok));
    }

    #[test]
    fn probe_answers_round_trip() {
        let answers = [
            Answer::Probed {
                id: 4,
                probe: ProbeFacts {
                    quantum_ns: Some(15_625_000),
                    overshoot_ns: None,
                    floor_ns: 15_601_200,
                    costs: costs(8),
                    primitive: "Win32 Sleep()".into(),
                },
            },
            Answer::Probed {
                id: 5,
                probe: ProbeFacts {
                    quantum_ns: None,
                    overshoot_ns: Some(55_000),
                    floor_ns: 1_055_000,
                    costs: costs(3),
                    primitive: String::new(),
                },
            },
            Answer::Sheet {
                id: 6,
                bands: vec![Band {
                    k: 1,
                    request_ms: 8,
                    cost_ns: 15_625_000,
                    rate_hz: 64.0,
                }],
            },
            Answer::Sheet {
                id: 7,
                bands: Vec::new(),
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
    fn a_verdict_cut_short_is_truncated_with_its_id() {
        let mut payload = Vec::new();
        Request::Verdict {
            id: 9,
            costs: Costs {
                floor_ns: 1,
                costs: costs(3),
            },
        }
        .encode(&mut payload);
        // The count says three costs; the frame holds two and a half, or only the header's
        // first bytes.
        for cut in [payload.len() - 6, VERDICT_HEADER_LEN - 1, 10] {
            let decoded: Vec<_> = decode_requests(&payload[..cut]).collect();
            assert_eq!(
                decoded,
                [Err(Malformed {
                    reason: Reason::Truncated,
                    id: Some(9)
                })],
                "cut at {cut}"
            );
        }
        let short_probe: Vec<_> =
            decode_requests(&[kind::PROBE, 0, 0, 0, 0, 0, 0, 0, 1, 0]).collect();
        assert_eq!(
            short_probe,
            [Err(Malformed {
                reason: Reason::Truncated,
                id: Some(1)
            })]
        );
    }

    #[test]
    fn a_probed_answer_with_a_name_that_is_not_utf8_is_not_one_the_port_sends() {
        let mut payload = Vec::new();
        Answer::Probed {
            id: 1,
            probe: ProbeFacts {
                quantum_ns: None,
                overshoot_ns: None,
                floor_ns: 0,
                costs: Vec::new(),
                primitive: "ab".into(),
            },
        }
        .encode(&mut payload);
        let last = payload.len() - 1;
        payload[last] = 0xFF;
        let decoded: Vec<_> = decode_answers(&payload).collect();
        assert!(matches!(decoded[..], [Err(_)]), "{decoded:?}");
    }

    #[test]
    fn a_sheet_longer_than_the_port_sends_is_not_an_answer() {
        let mut long = vec![kind::SHEET];
        long.extend_from_slice(&1u64.to_be_bytes());
        long.extend_from_slice(&(BANDS_MAX + 1).to_be_bytes());
        long.resize(SHEET_HEADER_LEN + BAND_LEN * usize::from(BANDS_MAX + 1), 0);
        let decoded: Vec<_> = decode_answers(&long).collect();
        assert!(matches!(decoded[..], [Err(_)]), "{decoded:?}");
    }

    #[test]
    fn a_long_primitive_is_cut_on_a_character_boundary() {
        let probe = ProbeFacts {
            quantum_ns: None,
            overshoot_ns: None,
            floor_ns: 0,
            costs: Vec::new(),
            primitive: "é".repeat(200),
        };
        let mut payload = Vec::new();
        Answer::Probed { id: 1, probe }.encode(&mut payload);
        let decoded: Vec<_> = decode_answers(&payload).collect();
        let [Ok(Answer::Probed { probe, .. })] = &decoded[..] else {
            panic!("{decoded:?}");
        };
        assert_eq!(probe.primitive, "é".repeat(127));
    }
}
