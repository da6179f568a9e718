//! What the probe times with: the plain OS sleep a naive program calls, the fine clock, the
//! coarse clock, and busy work. The mock models a tick-quantised sleep (Windows' 15.625 ms)
//! or a high-resolution one, so tests see the same findings every time.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::bench::method::{MethodSpec, WaitMethod};
use crate::rng::Rng;
use crate::sys::{self, CoarseClock, Platform};

/// What the probe times, and how its report names it. The run's backend makes it
/// (`Backend::probe_target`): [`real`] or [`mock`].
pub struct ProbeTarget {
    pub clock: Box<dyn ProbeClock>,
    /// The OS and architecture the report names.
    pub os: String,
    /// The sleep the report names.
    pub sleep: String,
    /// The seed of the scrambled phase's busy work.
    pub seed: u64,
}

/// `spec`'s single-thread method on the machine's clocks, named `sleep`.
pub fn real(spec: &'static MethodSpec, sleep: String) -> anyhow::Result<ProbeTarget> {
    let sleeper = (spec.sync()?.create)().with_context(|| format!("setting up `{}`", spec.name))?;
    Ok(ProbeTarget {
        clock: Box::new(RealClock::new(sleeper)),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        sleep,
        seed: u64::from(std::process::id()),
    })
}

/// The modelled sleep of a mock run: quantised by `quantum`, or high-resolution.
pub fn mock(quantum: Option<Duration>) -> ProbeTarget {
    ProbeTarget {
        clock: Box::new(MockClock::new(quantum)),
        os: "MockOS".into(),
        sleep: MOCK_SLEEP.into(),
        seed: 7,
    }
}

/// What the mock's report calls the sleep it models.
const MOCK_SLEEP: &str = "mock_sleep()";

pub trait ProbeClock {
    /// Nanoseconds since the probe started, on the fine clock.
    fn now_ns(&mut self) -> u64;
    /// The sleep probed, as a naive program calls it (the OS's plain sleep by default).
    fn sleep(&mut self, duration: Duration);
    /// Busy work, to scramble the phase.
    fn busy(&mut self, duration: Duration);
    /// The coarse clock's name and reading, in nanoseconds.
    fn coarse(&mut self) -> Option<(&'static str, u64)>;
}

pub struct RealClock {
    start: Instant,
    coarse: Option<CoarseClock>,
    sleeper: Box<dyn WaitMethod>,
}

impl RealClock {
    /// Times `sleeper`, one of bench's methods, each sleep asked for as a deadline that
    /// far from now (the method turns it into the call's own unit).
    pub fn new(sleeper: Box<dyn WaitMethod>) -> RealClock {
        RealClock {
            start: Instant::now(),
            coarse: sys::Os::coarse_clock(),
            sleeper,
        }
    }
}

impl ProbeClock for RealClock {
    fn now_ns(&mut self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn sleep(&mut self, duration: Duration) {
        self.sleeper.wait_until(Instant::now() + duration);
    }

    fn busy(&mut self, duration: Duration) {
        let end = Instant::now() + duration;
        while Instant::now() < end {
            std::hint::spin_loop();
        }
    }

    fn coarse(&mut self) -> Option<(&'static str, u64)> {
        self.coarse.map(|c| (c.name, (c.now)().as_nanos() as u64))
    }
}

/// A virtual machine-time: every clock read costs 25 ns; a sleep wakes on the next tick
/// boundary at or after its end (quantised) or 55 us plus jitter after it (high resolution).
pub struct MockClock {
    now_ns: u64,
    quantum_ns: Option<u64>,
    rng: Rng,
}

impl MockClock {
    pub fn new(quantum: Option<Duration>) -> MockClock {
        MockClock {
            now_ns: 1_000_000_000,
            quantum_ns: quantum.map(|q| q.as_nanos() as u64),
            rng: Rng::new(7),
        }
    }
}

const MOCK_JIFFY_NS: u64 = 4_000_000;

impl ProbeClock for MockClock {
    fn now_ns(&mut self) -> u64 {
        self.now_ns += 25;
        self.now_ns
    }

    fn sleep(&mut self, duration: Duration) {
        let d = duration.as_nanos() as u64;
        if d == 0 {
            self.now_ns += 300;
            return;
        }
        self.now_ns = match self.quantum_ns {
            Some(q) => (self.now_ns + d).div_ceil(q) * q + 2_000 + self.rng.below(3_000),
            None => self.now_ns + d + 55_000 + self.rng.below(30_000),
        };
    }

    fn busy(&mut self, duration: Duration) {
        self.now_ns += duration.as_nanos() as u64;
    }

    fn coarse(&mut self) -> Option<(&'static str, u64)> {
        let tick = self.quantum_ns.unwrap_or(MOCK_JIFFY_NS);
        self.now_ns += 25;
        Some(("mock coarse clock", self.now_ns / tick * tick))
    }
}
