//! Stand-ins for every method, on a virtual clock: each wakes late by a fixed,
//! deterministic pattern shaped like the real method's, so CLI tests see stable output.
//! [`Mock`] is the [`Backend`] the hidden `--mock-timer` flag selects; never part of a real
//! run. How each stand-in wakes, the scale mode's too, is in [`profiles`] and nowhere else:
//! a method's spec says nothing of its mock. The modes' own models (the scale mode's, the
//! server workload's, the frontier's contenders', the probe's clock) live beside the modes,
//! and only [`Mock`] chooses them.

pub mod profiles;

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::bench::backend::Backend;
use crate::bench::clock::MockClock;
use crate::bench::frontier::contenders::{Contender, Scales};
use crate::bench::frontier::mock as frontier_mock;
use crate::bench::method::{Measured, MethodSpec, SpinCounts, WaitMethod};
use crate::bench::scale::server::run::ServerArgs;
use crate::bench::scale::server::{mock as server_mock, ServerResult};
use crate::bench::scale::worker::WorkerArgs;
use crate::bench::scale::{mock as scale_mock, ScaleResult};
use crate::probe::clock::{self as probe_clock, ProbeTarget};
use crate::rng::Rng;

/// The mock machine's CPUs, whatever this one has.
const MOCK_CPUS: u64 = 2;

/// Deterministic stand-ins for every method, each on its measuring thread's virtual clock.
#[derive(Debug)]
pub struct Mock;

impl Backend for Mock {
    fn is_mock(&self) -> bool {
        true
    }

    fn thread_clock(&self) -> Option<MockClock> {
        Some(MockClock::new())
    }

    fn sync_method(
        &self,
        spec: &'static MethodSpec,
        clock: Option<&MockClock>,
        thread: u64,
    ) -> anyhow::Result<Box<dyn Measured>> {
        spec.sync()?;
        let clock = clock.context("a stand-in runs on its thread's virtual clock")?;
        let profile = profiles::sync(spec.name)
            .with_context(|| format!("`{}` has no stand-in under --mock-timer", spec.name))?;
        Ok(Box::new(MockMethod::new(
            spec.name,
            profile,
            clock.clone(),
            thread,
        )))
    }

    fn frontier_scales(&self) -> Scales {
        Scales::LINUX
    }

    fn contender(
        &self,
        contender: Contender,
        clock: Option<&MockClock>,
    ) -> anyhow::Result<Box<dyn Measured>> {
        let clock = clock.context("a stand-in runs on its thread's virtual clock")?;
        Ok(frontier_mock::method(contender, clock.clone()))
    }

    fn scale(&self, args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
        scale_mock::measure(args)
    }

    fn server(&self, args: &ServerArgs) -> anyhow::Result<ServerResult> {
        server_mock::measure(args)
    }

    fn cpus(&self) -> u64 {
        MOCK_CPUS
    }

    fn probe_target(
        &self,
        _spec: &'static MethodSpec,
        _sleep: String,
        mock_quantum: Option<Duration>,
    ) -> anyhow::Result<ProbeTarget> {
        Ok(probe_clock::mock(mock_quantum))
    }
}

/// How a mock method wakes: `base + U[0, jitter)`, plus `tail` on every `tail_every`-th
/// wait; its CPU cost is `cpu` plus, for spinning methods, `spin_share` of the wait.
/// punctual's own sync strategies report their own wake reading, and their caller gets
/// control back `return_ns` after it, as on a real machine. Each method's is in
/// [`profiles::SYNC`].
#[derive(Debug, Clone, Copy)]
pub struct MockProfile {
    base_ns: u64,
    jitter_ns: u64,
    tail_every: u64,
    tail_ns: u64,
    cpu_ns: u64,
    spin_share: f64,
    return_ns: Option<u64>,
    /// Whether it stands for a method with a learned spin tail, which counts its sleeps.
    counts_spins: bool,
}

impl MockProfile {
    /// Wakes `base_ns + U[0, jitter_ns)` late, `tail_ns` more every 97th wait, at a CPU cost
    /// of `cpu_ns` plus `spin_share` of the wait.
    pub const fn new(
        base_ns: u64,
        jitter_ns: u64,
        tail_ns: u64,
        cpu_ns: u64,
        spin_share: f64,
    ) -> MockProfile {
        MockProfile {
            base_ns,
            jitter_ns,
            tail_every: 97,
            tail_ns,
            cpu_ns,
            spin_share,
            return_ns: None,
            counts_spins: false,
        }
    }

    /// Reports its own wake reading, and hands control back `return_ns` after it.
    pub const fn reporting(self, return_ns: u64) -> MockProfile {
        MockProfile {
            return_ns: Some(return_ns),
            ..self
        }
    }

    /// Counts its sleeps as a method with a learned spin tail does.
    pub const fn counting_spins(self) -> MockProfile {
        MockProfile {
            counts_spins: true,
            ..self
        }
    }
}

pub struct MockMethod {
    profile: MockProfile,
    clock: MockClock,
    rng: Rng,
    waits: u64,
}

impl MockMethod {
    /// The stand-in for the method `name` waiting as `profile` says, on `clock`; its jitter
    /// sequence follows from the name and, so that each has its own, the `thread`.
    pub fn new(name: &str, profile: MockProfile, clock: MockClock, thread: u64) -> MockMethod {
        let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        MockMethod {
            profile,
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
        self.profile.counts_spins.then_some(SpinCounts {
            sleeps: self.waits,
            spun: self.waits - self.waits / 7,
            capped: self.waits / 7,
            native_only: 0,
        })
    }
}
