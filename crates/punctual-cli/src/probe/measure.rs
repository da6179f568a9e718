//! Timing the plain sleep: the ruler first, then every request, back to back and with a
//! scrambled phase.

use std::time::Duration;

use serde::Serialize;

use super::clock::ProbeClock;
use crate::rng::Rng;

/// The requests timed, from 0 and 1 us up to 30 ms: the 1 to 30 ms a `Sleep(n)` table of a
/// Windows program covers, and 15 and 16 ms on either side of a Windows tick.
pub const REQUESTS_US: [u64; 11] = [
    0, 1, 100, 1_000, 2_000, 5_000, 10_000, 15_000, 16_000, 20_000, 30_000,
];

/// The measuring instruments, checked before anything is measured with them.
#[derive(Debug, Clone, Serialize)]
pub struct Ruler {
    /// The smallest step seen between two consecutive fine-clock reads.
    pub fine_step_ns: u64,
    /// The mean cost of one fine-clock read.
    pub fine_read_ns: u64,
    /// The coarse clock (Linux `CLOCK_MONOTONIC_COARSE`, Windows `GetTickCount64`).
    pub coarse: Option<CoarseRuler>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CoarseRuler {
    pub name: &'static str,
    /// How far the coarse clock jumps when it moves.
    pub step_ns: u64,
}

pub fn ruler(clock: &mut dyn ProbeClock) -> Ruler {
    const READS: u64 = 100_000;
    let start = clock.now_ns();
    let mut last = start;
    let mut fine_step_ns = u64::MAX;
    for _ in 0..READS {
        let now = clock.now_ns();
        if now > last {
            fine_step_ns = fine_step_ns.min(now - last);
        }
        last = now;
    }
    let fine_read_ns = (last - start) / READS;
    Ruler {
        fine_step_ns,
        fine_read_ns,
        coarse: coarse_step(clock),
    }
}

/// Spins on the coarse clock until it moves twice (within 200 ms) and reports the jump.
fn coarse_step(clock: &mut dyn ProbeClock) -> Option<CoarseRuler> {
    let (name, first) = clock.coarse()?;
    let give_up = clock.now_ns() + 200_000_000;
    let mut steps = Vec::new();
    let mut last = first;
    while steps.len() < 3 && clock.now_ns() < give_up {
        let (_, now) = clock.coarse()?;
        if now != last {
            steps.push(now.saturating_sub(last));
            last = now;
        }
    }
    // The first change may be a partial step from wherever the clock was; the rest are whole.
    let step_ns = *steps.get(1..)?.iter().min()?;
    Some(CoarseRuler { name, step_ns })
}

/// Costs of one request in one phase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timing {
    pub samples: u64,
    pub mean_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

impl Timing {
    fn of(costs: &[u64]) -> Timing {
        let samples = costs.len() as u64;
        Timing {
            samples,
            mean_ns: costs.iter().sum::<u64>() / samples.max(1),
            min_ns: costs.iter().copied().min().unwrap_or(0),
            max_ns: costs.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Times `sleep(request)` until `budget` is spent (at least 10 calls, at most 400), each
/// call after `scramble` of random work when that is not zero.
pub fn time_requests(
    clock: &mut dyn ProbeClock,
    request: Duration,
    budget: Duration,
    scramble: Duration,
    rng: &mut Rng,
) -> Timing {
    let started = clock.now_ns();
    let budget_ns = budget.as_nanos() as u64;
    let mut costs = Vec::new();
    while costs.len() < 400 && (costs.len() < 10 || clock.now_ns() - started < budget_ns) {
        if !scramble.is_zero() {
            clock.busy(Duration::from_nanos(rng.below(scramble.as_nanos() as u64)));
        }
        let before = clock.now_ns();
        clock.sleep(request);
        costs.push(clock.now_ns() - before);
    }
    Timing::of(&costs)
}
