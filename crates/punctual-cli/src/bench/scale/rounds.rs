//! What the rounds of one method at one N add up to: every timer's lateness, the stalls,
//! and, from 1,000 timers up, each round on its own.

use super::stall::Stalls;
use super::{RoundSummary, MIN_TIMERS_FOR_RSS};
use crate::bench::stats::{Recorder, Sample};

#[derive(Debug, Default)]
pub struct Rounds {
    pub recorder: Recorder,
    pub stalls: Stalls,
    pub by_round: Vec<RoundSummary>,
    pub count: u64,
}

impl Rounds {
    /// Adds a round: timer i was due at `deadlines_ns[i]` and completed `late_ns[i]` late.
    pub fn add(&mut self, deadlines_ns: &[u64], late_ns: &[i64]) {
        let mut this_round = Recorder::default();
        for &lateness_ns in late_ns {
            let sample = Sample {
                lateness_ns,
                cpu_ns: 0,
            };
            self.recorder.record(sample);
            this_round.record(sample);
        }
        let stalls = Stalls::of_round(deadlines_ns, late_ns);
        self.stalls.merge(stalls);
        if late_ns.len() >= MIN_TIMERS_FOR_RSS {
            let lateness = this_round.summary().lateness;
            self.by_round.push(RoundSummary {
                p99_ns: lateness.p99_ns,
                max_ns: lateness.max_ns,
                longest_stall_ns: stalls.longest_stall_ns,
            });
        }
        self.count += 1;
    }
}
