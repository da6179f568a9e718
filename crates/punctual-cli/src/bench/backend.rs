//! Where a run's methods and clocks come from: the machine's ([`Real`]), or deterministic
//! stand-ins on a virtual clock ([`Mock`], the hidden `--mock-timer`). The choice is made
//! once, at the start of a command ([`chosen`]), and passed by reference to whatever makes
//! a method, reads a clock or starts a worker process; nothing below asks the command line
//! again, and only the mock knows how its stand-ins wake.
//!
//! [`Mock`]: super::mock::Mock

use std::fmt::Debug;
use std::time::Duration;

use super::clock::MockClock;
use super::frontier::contenders::{Contender, Scales};
use super::method::{Measured, MethodSpec};
use super::mock::Mock;
use super::scale::process;
use super::scale::server::run::ServerArgs;
use super::scale::server::ServerResult;
use super::scale::worker::WorkerArgs;
use super::scale::ScaleResult;
use crate::probe::clock::{self as probe_clock, ProbeTarget};

/// How a run makes its methods and the clocks they are measured by.
///
/// A measuring thread asks for its clock ([`Backend::thread_clock`]) and then its method
/// ([`Backend::sync_method`], [`Backend::contender`]) on itself, so that a method's
/// thread-local state and a virtual clock (which is not `Send`) stay on the thread that
/// measures with them.
pub trait Backend: Debug + Sync {
    /// Whether this is the mock: what depends on the machine rather than on a method (the
    /// environment, the progress bar, real-time settings, the CPUs to pin to) asks this.
    fn is_mock(&self) -> bool;

    /// The clock a measuring thread reads, made on that thread: `None` for the machine's
    /// (the measuring loop is then compiled for it), else a virtual clock of its own.
    fn thread_clock(&self) -> Option<MockClock>;

    /// `spec`'s single-thread method, made on the measuring thread numbered `thread` (each
    /// thread of a crew has its own), which reads `clock`, what
    /// [`Backend::thread_clock`] gave it.
    ///
    /// # Errors
    ///
    /// When `spec` has no single-thread part, or its method cannot be set up here.
    fn sync_method(
        &self,
        spec: &'static MethodSpec,
        clock: Option<&MockClock>,
        thread: u64,
    ) -> anyhow::Result<Box<dyn Measured>>;

    /// What sets the range of `punctual frontier`'s sweeps.
    fn frontier_scales(&self) -> Scales;

    /// One of `punctual frontier`'s contenders, made on its measuring thread, which reads
    /// `clock` (see [`Backend::sync_method`]).
    ///
    /// # Errors
    ///
    /// When the contender's method cannot be set up here.
    fn contender(
        &self,
        contender: Contender,
        clock: Option<&MockClock>,
    ) -> anyhow::Result<Box<dyn Measured>>;

    /// One method at one N of `punctual scale`'s fire workload: in a worker process of its
    /// own, or the scale mode's model of it.
    ///
    /// # Errors
    ///
    /// When the worker cannot be started or fails, or the method has no scale part.
    fn scale(&self, args: &WorkerArgs) -> anyhow::Result<ScaleResult>;

    /// One method under `punctual scale --workload server`: in a worker process of its own,
    /// or the server workload's model of it.
    ///
    /// # Errors
    ///
    /// As [`Backend::scale`].
    fn server(&self, args: &ServerArgs) -> anyhow::Result<ServerResult>;

    /// The CPUs a multi-thread runtime has a worker per, unless the command line says.
    fn cpus(&self) -> u64;

    /// What `punctual probe` times: `spec`'s single-thread method on the machine's clocks,
    /// named `sleep` in its report, or the probe's modelled sleep (`mock_quantum` its tick;
    /// none for a high-resolution timer).
    ///
    /// # Errors
    ///
    /// When `spec`'s method cannot be set up here.
    fn probe_target(
        &self,
        spec: &'static MethodSpec,
        sleep: String,
        mock_quantum: Option<Duration>,
    ) -> anyhow::Result<ProbeTarget>;
}

/// The machine's methods and clocks.
#[derive(Debug)]
pub struct Real;

impl Backend for Real {
    fn is_mock(&self) -> bool {
        false
    }

    fn thread_clock(&self) -> Option<MockClock> {
        None
    }

    fn sync_method(
        &self,
        spec: &'static MethodSpec,
        _clock: Option<&MockClock>,
        _thread: u64,
    ) -> anyhow::Result<Box<dyn Measured>> {
        (spec.sync()?.create)()
    }

    fn frontier_scales(&self) -> Scales {
        Scales::here()
    }

    fn contender(
        &self,
        contender: Contender,
        _clock: Option<&MockClock>,
    ) -> anyhow::Result<Box<dyn Measured>> {
        contender.method()
    }

    fn scale(&self, args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
        process::fire(args)
    }

    fn server(&self, args: &ServerArgs) -> anyhow::Result<ServerResult> {
        process::server(args)
    }

    fn cpus(&self) -> u64 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
    }

    fn probe_target(
        &self,
        spec: &'static MethodSpec,
        sleep: String,
        _mock_quantum: Option<Duration>,
    ) -> anyhow::Result<ProbeTarget> {
        probe_clock::real(spec, sleep)
    }
}

/// The backend `--mock-timer` asks for; the one place a command turns the flag into one.
pub fn chosen(mock_timer: bool) -> &'static dyn Backend {
    if mock_timer {
        &Mock
    } else {
        &Real
    }
}
