//! The probe's requests, served for the timer thread: PROBE times the OS's plain sleep on
//! a thread of its own and posts its answer back through the inbox, as the reader posts
//! requests, so that the timer thread goes on firing wakes for the second or two a probe
//! takes; VERDICT and CHEAT_SHEET are arithmetic, answered at once.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use punctual::quantum;

use super::inbox::{Command, Inbox};
use super::wire::{
    Answer, Band, Cost, Costs, ProbeFacts, Reason, BANDS_MAX, COSTS_MAX, SAMPLES_MAX,
};

/// The probe running, if any: one at a time, since two would time each other's sleeps.
#[derive(Debug, Default)]
pub(crate) struct Prober {
    running: Option<JoinHandle<()>>,
}

impl Prober {
    /// Starts a PROBE; an error answer when `samples` is out of range, a probe is still
    /// running, or its thread cannot be started. Its answer comes through `inbox`.
    pub(crate) fn start(&mut self, id: u64, samples: u32, inbox: &Arc<Inbox>) -> Option<Answer> {
        let error = |reason| {
            Some(Answer::Error {
                reason,
                id: Some(id),
            })
        };
        let samples = match NonZeroU32::new(samples) {
            Some(n) if n.get() <= SAMPLES_MAX => n,
            _ => return error(Reason::OutOfRange),
        };
        if self.running.as_ref().is_some_and(|h| !h.is_finished()) {
            return error(Reason::ProbeBusy);
        }
        let inbox = Arc::clone(inbox);
        let spawned = thread::Builder::new().name("probe".into()).spawn(move || {
            // A thread inherits its creator's real-time policy; the probe times a
            // plain sleep as an ordinary program's thread sleeps it. Where the policy
            // cannot be dropped, it times what it can.
            let _ = punctual::rt::set_normal_scheduling();
            let probe = quantum::probe(samples);
            let probe = facts(&probe, quantum::PLAIN_SLEEP);
            inbox.post(&mut vec![Command::Reply(Answer::Probed { id, probe })]);
        });
        match spawned {
            Ok(handle) => {
                self.running = Some(handle);
                None
            }
            Err(_) => error(Reason::ProbeFailed),
        }
    }
}

/// VERDICT's answer: `Probe::from_costs` on the client's costs.
pub(crate) fn verdict(id: u64, costs: Costs) -> Answer {
    let costs_in = costs
        .costs
        .iter()
        .map(|c| quantum::Cost {
            request: Duration::from_millis(c.request_ms.into()),
            mean: Duration::from_nanos(c.mean_ns),
        })
        .collect();
    let probe = quantum::Probe::from_costs(costs_in, Duration::from_nanos(costs.floor_ns));
    Answer::Probed {
        id,
        probe: facts(&probe, ""),
    }
}

/// CHEAT_SHEET's answer: `quantum::cheat_sheet`, ending where a band's cost passes what
/// the wire's u64 nanoseconds hold; an error past [`BANDS_MAX`].
pub(crate) fn cheat_sheet(id: u64, quantum_ns: u64, bands: u16) -> Answer {
    if bands > BANDS_MAX {
        return Answer::Error {
            reason: Reason::OutOfRange,
            id: Some(id),
        };
    }
    let bands = quantum::cheat_sheet(Duration::from_nanos(quantum_ns), bands.into())
        .iter()
        .map_while(|band| {
            Some(Band {
                k: band.k,
                request_ms: band.request_ms,
                cost_ns: u64::try_from(band.cost.as_nanos()).ok()?,
                rate_hz: band.rate_hz(),
            })
        })
        .collect();
    Answer::Sheet { id, bands }
}

fn facts(probe: &quantum::Probe, primitive: &str) -> ProbeFacts {
    ProbeFacts {
        quantum_ns: probe.quantum.map(ns),
        overshoot_ns: probe.overshoot.map(ns),
        floor_ns: ns(probe.floor),
        costs: probe
            .costs
            .iter()
            .take(COSTS_MAX)
            .map(|c| Cost {
                request_ms: u32::try_from(c.request.as_millis()).unwrap_or(u32::MAX),
                mean_ns: ns(c.mean),
            })
            .collect(),
        primitive: primitive.to_owned(),
    }
}

/// Nanoseconds on the wire, where `u64::MAX` means none: a longer duration saturates
/// one below it.
fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos())
        .unwrap_or(u64::MAX - 1)
        .min(u64::MAX - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::PortClock;
    use crate::protocol2::inbox::MAIL_LIMIT;

    const MS: u64 = 1_000_000;

    fn probed(answer: Answer) -> ProbeFacts {
        match answer {
            Answer::Probed { probe, .. } => probe,
            other => panic!("expected a probe, got {other:?}"),
        }
    }

    fn costs(pairs: &[(u32, u64)], floor_ns: u64) -> Costs {
        Costs {
            floor_ns,
            costs: pairs
                .iter()
                .map(|&(request_ms, mean_ns)| Cost {
                    request_ms,
                    mean_ns,
                })
                .collect(),
        }
    }

    #[test]
    fn costs_on_a_tick_give_that_quantum() {
        let tick = 15_625_000;
        let pairs: Vec<(u32, u64)> = [1, 2, 5, 10, 15, 16, 20, 30]
            .iter()
            .map(|&ms| (ms, tick * (u64::from(ms) * MS).div_ceil(tick)))
            .collect();
        let probe = probed(verdict(1, costs(&pairs, tick - 1)));
        assert_eq!(probe.quantum_ns, Some(tick));
        assert_eq!(probe.overshoot_ns, None);
        assert_eq!(probe.floor_ns, tick - 1);
        assert_eq!(probe.costs.len(), pairs.len());
        assert_eq!(probe.primitive, "");
    }

    #[test]
    fn high_resolution_costs_give_an_overshoot() {
        let pairs = [
            (1, MS + 60_000),
            (2, 2 * MS + 62_000),
            (10, 10 * MS + 70_000),
        ];
        let probe = probed(verdict(2, costs(&pairs, MS + 50_000)));
        assert_eq!(probe.quantum_ns, None);
        assert_eq!(probe.overshoot_ns, Some(62_000));
    }

    #[test]
    fn no_costs_give_no_verdict() {
        let probe = probed(verdict(3, costs(&[], 0)));
        assert_eq!((probe.quantum_ns, probe.overshoot_ns), (None, None));
    }

    #[test]
    fn the_cheat_sheet_is_the_library_s() {
        let Answer::Sheet { id, bands } = cheat_sheet(4, 15_625_000, 3) else {
            panic!("expected a sheet");
        };
        assert_eq!(id, 4);
        let requests: Vec<u64> = bands.iter().map(|b| b.request_ms).collect();
        assert_eq!(requests, [8, 23, 39]);
        assert_eq!((bands[1].k, bands[1].cost_ns), (2, 31_250_000));
        assert_eq!(bands[0].rate_hz, 64.0);
        assert!(
            matches!(cheat_sheet(5, 0, 10), Answer::Sheet { ref bands, .. } if bands.is_empty())
        );
        let Answer::Sheet { bands: huge, .. } = cheat_sheet(5, u64::MAX, 10) else {
            panic!("expected a sheet");
        };
        // The second band's cost would pass the wire's u64 nanoseconds.
        assert_eq!(huge.len(), 1, "{huge:?}");
        assert_eq!(huge[0].cost_ns, u64::MAX);
        assert_eq!(
            cheat_sheet(6, 15_625_000, BANDS_MAX + 1),
            Answer::Error {
                reason: Reason::OutOfRange,
                id: Some(6)
            }
        );
    }

    #[test]
    fn samples_out_of_range_are_refused_before_a_thread_starts() {
        let inbox = Arc::new(Inbox::new(PortClock::start(), MAIL_LIMIT).unwrap());
        let mut prober = Prober::default();
        for samples in [0, SAMPLES_MAX + 1, u32::MAX] {
            assert_eq!(
                prober.start(7, samples, &inbox),
                Some(Answer::Error {
                    reason: Reason::OutOfRange,
                    id: Some(7)
                })
            );
        }
        assert!(prober.running.is_none());
    }

    #[test]
    fn a_probe_answers_through_the_inbox_and_one_runs_at_a_time() {
        let inbox = Arc::new(Inbox::new(PortClock::start(), MAIL_LIMIT).unwrap());
        let mut prober = Prober::default();
        assert_eq!(prober.start(8, 1, &inbox), None);
        // The probe sleeps at least a few hundred ms, so it is still running here.
        assert_eq!(
            prober.start(9, 1, &inbox),
            Some(Answer::Error {
                reason: Reason::ProbeBusy,
                id: Some(9)
            })
        );
        let mut bursts = Vec::new();
        while bursts.is_empty() {
            inbox.wait_until(None);
            inbox.take(&mut bursts);
        }
        let [Command::Reply(Answer::Probed { id: 8, probe })] = &bursts[0].commands[..] else {
            panic!("{bursts:?}");
        };
        assert_eq!(probe.costs.len(), quantum::REQUESTS_MS.len());
        assert_eq!(probe.primitive, quantum::PLAIN_SLEEP);
        assert!(probe
            .costs
            .iter()
            .all(|c| c.mean_ns >= u64::from(c.request_ms) * MS));
        assert!(probe.quantum_ns.is_some() != probe.overshoot_ns.is_some());
    }
}
