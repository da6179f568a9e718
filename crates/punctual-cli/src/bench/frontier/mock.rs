//! The frontier's stand-ins, on a virtual clock (`--mock-timer`): every contender sleeps
//! natively with a deterministic oversleep (a steady part, jitter, and a long stall every
//! 97th wait), then spins through what its margin left, so the points fall on a frontier
//! as real ones do and the CLI tests see the same output every run.

use std::time::{Duration, Instant};

use super::contenders::{Contender, Family};
use crate::bench::clock::{Clock, MockClock};
use crate::bench::method::Measured;
use crate::bench::method::WaitMethod;
use crate::rng::Rng;

/// How far past its target a native sleep wakes: `base + U[0, jitter)`, plus `stall_ns`
/// on every `STALL_EVERY`-th sleep.
#[derive(Debug, Clone, Copy)]
struct Oversleep {
    base_ns: u64,
    jitter_ns: u64,
    stall_ns: u64,
}

const STALL_EVERY: u64 = 97;

/// punctual's native sleep (1 ns timer slack) and std's (50 us slack), as bench's mock has
/// them.
const PUNCTUAL_NATIVE: Oversleep = Oversleep {
    base_ns: 18_000,
    jitter_ns: 6_000,
    stall_ns: 250_000,
};
const STD_NATIVE: Oversleep = Oversleep {
    base_ns: 70_000,
    jitter_ns: 25_000,
    stall_ns: 300_000,
};

/// What a wake costs the thread, whatever the method.
const WAKE_CPU_NS: u64 = 3_000;

/// How the margin is chosen at the `k`-th wait.
#[derive(Debug, Clone, Copy)]
enum Margin {
    Fixed(Duration),
    /// A learned margin that wanders over `base + (k mod 4) * step`.
    Learned {
        base: Duration,
        step: Duration,
    },
}

pub struct MockContender {
    clock: MockClock,
    rng: Rng,
    waits: u64,
    oversleep: Oversleep,
    margin: Margin,
    /// From the reading that ends the spin to the caller holding control.
    return_ns: u64,
    /// CPU of a helper thread, per wait (the async driver's).
    helper_cpu_ns: u64,
    helper_cpu: Duration,
    /// Whether it reports its own wake reading, as punctual's sync sleepers do.
    reports: bool,
}

/// The stand-in for `contender`.
pub fn method(contender: Contender, clock: MockClock) -> Box<dyn Measured> {
    let setting = contender.setting.unwrap_or_default();
    let micros = Duration::from_micros;
    let (oversleep, margin, return_ns, helper_cpu_ns, reports) = match contender.family {
        Family::FixedMargin => (PUNCTUAL_NATIVE, Margin::Fixed(setting), 40, 0, false),
        Family::SpinSleep => (STD_NATIVE, Margin::Fixed(setting), 40, 0, false),
        Family::Hybrid => (
            PUNCTUAL_NATIVE,
            Margin::Learned {
                base: micros(19),
                step: micros(3),
            },
            120,
            0,
            true,
        ),
        Family::AsyncSpin => (
            PUNCTUAL_NATIVE,
            Margin::Fixed(micros(30)),
            150,
            6_000,
            false,
        ),
    };
    Box::new(MockContender {
        clock,
        rng: Rng::new(0x5eed ^ setting.as_nanos() as u64 ^ contender.family as u64),
        waits: 0,
        oversleep,
        margin,
        return_ns,
        helper_cpu_ns,
        helper_cpu: Duration::ZERO,
        reports,
    })
}

impl WaitMethod for MockContender {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        self.waits += 1;
        let start = self.clock.now();
        let margin = match self.margin {
            Margin::Fixed(margin) => margin,
            Margin::Learned { base, step } => base + step * (self.waits % 4) as u32,
        };
        let mut woke = start;
        if let Some(target) = deadline.checked_sub(margin).filter(|&t| t > start) {
            let o = self.oversleep;
            let mut late_ns = o.base_ns + self.rng.below(o.jitter_ns);
            if self.waits.is_multiple_of(STALL_EVERY) {
                late_ns += o.stall_ns;
            }
            woke = self.clock.advance_to(
                target + Duration::from_nanos(late_ns),
                Duration::from_nanos(WAKE_CPU_NS),
            );
        }
        if woke < deadline {
            let spin_end = deadline + Duration::from_nanos(20 + self.rng.below(30));
            woke = self.clock.advance_to(spin_end, spin_end - woke);
        }
        self.clock
            .advance_to(woke + Duration::from_nanos(self.return_ns), Duration::ZERO);
        self.helper_cpu += Duration::from_nanos(self.helper_cpu_ns);
        self.reports.then_some(woke)
    }

    fn helper_cpu(&self) -> Duration {
        self.helper_cpu
    }
}
