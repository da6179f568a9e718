//! Stand-ins for every method, on a virtual clock: each wakes late by a fixed,
//! deterministic pattern shaped like the real method's, so CLI tests see stable output.
//! Selected by the hidden `--mock-timer` flag; never part of a real run.

use std::time::{Duration, Instant};

use crate::bench::clock::MockClock;
use crate::bench::method::{SpinCounts, WaitMethod};
use crate::rng::Rng;

/// How a mock method wakes: `base + U[0, jitter)`, plus `tail` on every `tail_every`-th
/// wait; its CPU cost is `cpu` plus, for spinning methods, `spin_share` of the wait.
/// punctual's own sync strategies report their own wake reading, and their caller gets
/// control back `return_ns` after it, as on a real machine.
#[derive(Debug, Clone, Copy)]
struct Profile {
    base_ns: u64,
    jitter_ns: u64,
    tail_every: u64,
    tail_ns: u64,
    cpu_ns: u64,
    spin_share: f64,
    return_ns: Option<u64>,
}

fn profile(name: &str) -> Profile {
    let p = |base_ns, jitter_ns, tail_ns, cpu_ns, spin_share| Profile {
        base_ns,
        jitter_ns,
        tail_every: 97,
        tail_ns,
        cpu_ns,
        spin_share,
        return_ns: None,
    };
    let reporting = |profile: Profile, return_ns| Profile {
        return_ns: Some(return_ns),
        ..profile
    };
    match name {
        "native" => reporting(p(18_000, 6_000, 250_000, 3_000, 0.0), 60),
        "hybrid" => reporting(p(30, 60, 20_000, 9_000, 0.0), 120),
        "spin" => reporting(p(20, 30, 0, 0, 1.0), 160),
        "async" => p(24_000, 6_000, 300_000, 6_500, 0.0),
        "async-spin" => p(140, 40, 20_000, 20_000, 0.045),
        "std" => p(70_000, 25_000, 300_000, 3_500, 0.0),
        "spin_sleep" => p(40, 90, 0, 45_000, 0.0),
        "tokio" => p(1_050_000, 40_000, 500_000, 6_000, 0.0),
        "async-io" => p(60_000, 20_000, 300_000, 5_000, 0.0),
        // The OS's own: whole-ms timeouts land anywhere in the next millisecond, Windows'
        // Sleep and normal timers on a 15.625 ms tick, 1 ms with timeBeginPeriod(1).
        "nanosleep" | "select" => p(60_000, 20_000, 300_000, 3_000, 0.0),
        "timerfd" | "kqueue" => p(50_000, 15_000, 250_000, 3_000, 0.0),
        "epoll" | "poll" => p(60_000, 1_000_000, 300_000, 3_000, 0.0),
        "sched_yield" => p(300, 900, 20_000, 0, 1.0),
        "sleep-ms" | "waitable-timer" => p(100_000, 15_625_000, 0, 3_000, 0.0),
        "sleep-ms-period1" | "usleep" => p(100_000, 1_000_000, 300_000, 3_000, 0.0),
        "hybrid-fixed" => p(20, 40, 0, 1_000_000, 0.0),
        _ => p(10_000, 10_000, 100_000, 2_000, 0.0),
    }
}

pub struct MockMethod {
    /// Whether it stands for a method with a learned spin tail, which counts its sleeps.
    learns: bool,
    profile: Profile,
    clock: MockClock,
    rng: Rng,
    waits: u64,
}

impl MockMethod {
    pub fn new(name: &str, clock: MockClock) -> MockMethod {
        MockMethod::for_thread(name, clock, 0)
    }

    /// Like [`MockMethod::new`], with a jitter sequence of its own for each `thread`.
    pub fn for_thread(name: &str, clock: MockClock, thread: u64) -> MockMethod {
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        MockMethod {
            learns: matches!(name, "hybrid" | "async-spin"),
            profile: profile(name),
            clock,
            rng: Rng::new(seed ^ thread.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            waits: 0,
        }
    }
}

impl WaitMethod for MockMethod {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        use crate::bench::clock::Clock;
        self.waits += 1;
        let p = self.profile;
        let mut late = p.base_ns + self.rng.below(p.jitter_ns);
        if self.waits.is_multiple_of(p.tail_every) {
            late += p.tail_ns;
        }
        let wait = deadline.saturating_duration_since(self.clock.now());
        let cpu = Duration::from_nanos(p.cpu_ns) + wait.mul_f64(p.spin_share);
        let woke = deadline.max(self.clock.now()) + Duration::from_nanos(late);
        self.clock.advance_to(woke, cpu);
        let return_ns = p.return_ns?;
        self.clock
            .advance_to(woke + Duration::from_nanos(return_ns), Duration::ZERO);
        Some(woke)
    }

    /// One sleep in seven capped, the rest spun: a fixed pattern, not a model.
    fn spin_counts(&self) -> Option<SpinCounts> {
        self.learns.then_some(SpinCounts {
            sleeps: self.waits,
            spun: self.waits - self.waits / 7,
            capped: self.waits / 7,
            native_only: 0,
        })
    }
}
