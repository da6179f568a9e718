//! Where a run's methods and clocks come from: the machine's ([`Real`]), or deterministic
//! stand-ins on a virtual clock ([`Mock`], the hidden `--mock-timer`). The choice is made
//! once, at the start of a command ([`chosen`]), and passed by reference to whatever makes
//! a method or reads a clock; nothing below asks the command line again, and only the mock
//! knows how its stand-ins wake.
//!
//! [`Mock`]: super::methods::mock::Mock

use std::fmt::Debug;

use super::clock::MockClock;
use super::method::Measured;
use super::method::MethodSpec;
use super::methods::mock::Mock;

/// How a run makes its methods and the clocks they are measured by.
///
/// A measuring thread asks for its clock ([`Backend::thread_clock`]) and then its method
/// ([`Backend::sync_method`]) on itself, so that a method's thread-local state and a virtual
/// clock (which is not `Send`) stay on the thread that measures with them.
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
}

/// The backend `--mock-timer` asks for; the one place a command turns the flag into one.
pub fn chosen(mock_timer: bool) -> &'static dyn Backend {
    if mock_timer {
        &Mock
    } else {
        &Real
    }
}
