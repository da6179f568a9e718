//! What a way to wait is to `punctual bench`: the [`WaitMethod`] trait and the plain types
//! of a method's spec. This module is the bottom layer, with its siblings `batch.rs`,
//! `clock.rs` and `stats.rs`: it names no method, no mode and no worker (`tests/layering.rs`
//! checks). Each method lives in one small file under `methods/`, as one [`MethodSpec`]
//! with every part the bench has of it, and is listed once in [`registry::METHODS`], the
//! layer on top. Names are for the command line and the outputs; the program asks the spec.
//!
//! [`registry::METHODS`]: super::registry::METHODS

use std::time::{Duration, Instant};

use punctual::future::DriverConfig;

use super::batch::{Batch, BatchResult};
use super::clock::MockClock;
use crate::sys::waits::{TargetOs, THIS_OS};

/// One way to wait, as the bench drives it.
///
/// A method is created on the thread that will measure it and stays there, so thread-local
/// state (timer slack, a learned margin, a runtime) is the method's own and no other method
/// inherits it.
pub trait WaitMethod {
    /// Waits until `deadline`. Returns the method's own reading of when it woke, where it
    /// takes one (punctual's `Wake::woke`), else `None`.
    ///
    /// The harness never times a method by that reading: every method's lateness is the
    /// harness's own clock reading once this returns, as a caller of the method would see
    /// it. The method's own reading is reported beside it, as what the method says of
    /// itself.
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant>;

    /// CPU time used so far on this method's behalf by threads other than the measuring one
    /// (a timer driver), so that its cost is not hidden.
    fn helper_cpu(&self) -> Duration {
        Duration::ZERO
    }

    /// Something a reader of the results should know (a degraded timer, a learned margin).
    fn note(&self) -> Option<String> {
        None
    }

    /// What a method with a learned spin tail counted of its own sleeps so far.
    fn spin_counts(&self) -> Option<SpinCounts> {
        None
    }
}

/// A wait method with the measuring loop compiled for its own type: the loop calls the
/// method, and reads the clock after it, directly, as a caller's own code does, so that the
/// lateness measured holds no indirect call the caller would not make (an indirect call
/// after a long spin can miss the predictor and the cache; the library crate's
/// `return_path` example measures what it costs on a machine). The loop is entered once per
/// batch, through the vtable. Every [`WaitMethod`] is one: the loop and that implementation
/// are the measuring thread's (`worker.rs`).
pub trait Measured: WaitMethod {
    /// Measures one batch on the machine's clocks (`None`) or on a mock clock.
    fn measure(&mut self, mock: Option<&MockClock>, batch: Batch) -> BatchResult;
}

/// The counters of a method with a learned spin tail (punctual's hybrid, `async-spin`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpinCounts {
    /// Sleeps with a deadline still ahead.
    pub sleeps: u64,
    /// Sleeps that ended in a spin.
    pub spun: u64,
    /// Sleeps whose margin the CPU budget cut short.
    pub capped: u64,
    /// Sleeps done natively all the way, no recent oversleep fitting in the budget.
    pub native_only: u64,
}

impl std::ops::AddAssign for SpinCounts {
    fn add_assign(&mut self, other: SpinCounts) {
        self.sleeps += other.sleeps;
        self.spun += other.spun;
        self.capped += other.capped;
        self.native_only += other.native_only;
    }
}

/// One way to wait, with every part the bench has of it. A method is a `pub const SPEC` in
/// a file of its own under `methods/`, listed once in [`registry::METHODS`]. A method
/// without a part says `None` for it, so forgetting one does not compile. Its stand-in under
/// `--mock-timer` is the mock's business (`methods/mock/profiles.rs`), not the spec's.
///
/// [`registry::METHODS`]: super::registry::METHODS
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    /// The name `--methods` takes, the tables print and the exports carry.
    pub name: &'static str,
    /// One line for `--list-methods` and the docs.
    pub about: &'static str,
    /// Whether this is one of punctual's own methods (as opposed to a peer).
    pub ours: bool,
    /// Where it runs: the portable methods everywhere, an OS's own primitives on that OS.
    pub runs_on: Oses,
    /// Where it is one of the OS's own ways to wait (the `os` group of `--methods`).
    pub os_primitive_on: Oses,
    /// Where it promises never to return before the deadline by the caller's clock (the
    /// smoke tests assert it there only: `Sleep`, the waitable timers and mingw's sleeps
    /// promise no such thing).
    pub never_early_on: Oses,
    /// The method as one thread waits with it (the wait table, `--frontier`, `--threads`),
    /// or `None` when only the scale mode has it.
    pub sync: Option<SyncSpec>,
    /// N of its timers pending at once (`--scale`), or `None` when it has no scale mode.
    pub scale: Option<ScaleSpec>,
}

/// A method as one thread waits with it.
#[derive(Debug, Clone, Copy)]
pub struct SyncSpec {
    /// Builds the method on the measuring thread.
    pub create: fn() -> anyhow::Result<Box<dyn Measured>>,
}

/// A method as the scale mode runs N of its timers at once: which timer its tasks await,
/// and on which runtime. The scale mode builds the timer in a worker process of its own
/// (`scale/timers.rs`), so that the method's memory and CPU are its own.
#[derive(Debug, Clone, Copy)]
pub struct ScaleSpec {
    /// The timer its tasks await.
    pub timer: TimerKind,
    /// The tokio runtime its tasks run on.
    pub runtime: ScaleRuntime,
    /// Whether `--workload server` measures it too.
    pub server: bool,
}

/// The timer a scale method's tasks await.
#[derive(Debug, Clone, Copy)]
pub enum TimerKind {
    /// punctual's futures on a private driver made with this configuration. A real-time
    /// priority in it raises the executor's thread to the same while the deadlines run.
    Driver(fn() -> DriverConfig),
    /// punctual's futures on a private driver per runtime worker, each made with this
    /// configuration: each worker's sleeps on its own driver.
    DriverPerWorker(fn() -> DriverConfig),
    /// `tokio::time`, whose wheel runs on the executor's threads.
    Tokio,
}

/// The tokio runtime a scale method's tasks run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleRuntime {
    /// A current-thread runtime, on the worker's main thread: every method `all` runs.
    CurrentThread,
    /// A multi-thread runtime with a worker per CPU: for the methods named only, measuring
    /// what a user with more than one core gets.
    MultiThread,
}

impl MethodSpec {
    /// Its single-thread part, or an error that says it has none.
    pub fn sync(&self) -> anyhow::Result<&SyncSpec> {
        self.sync
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("`{}` is measured only in the scale mode", self.name))
    }

    /// Its scale part, or an error that says it has none.
    pub fn scale(&self) -> anyhow::Result<&ScaleSpec> {
        self.scale
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("`{}` has no scale mode", self.name))
    }

    /// Whether only the scale mode has it.
    pub fn scale_only(&self) -> bool {
        self.sync.is_none() && self.scale.is_some()
    }
}

impl MethodSpec {
    /// Whether it runs on the OS this program was built for.
    pub fn runs_here(&self) -> bool {
        self.runs_on.contains(THIS_OS)
    }

    /// Whether it promises here never to wake before its deadline.
    pub fn never_early_here(&self) -> bool {
        self.never_early_on.contains(THIS_OS)
    }

    /// Whether it is in this OS's `os` group.
    pub fn os_primitive_here(&self) -> bool {
        self.os_primitive_on.contains(THIS_OS)
    }
}

/// A set of OSes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oses {
    pub linux: bool,
    pub macos: bool,
    pub windows: bool,
    pub other: bool,
}

impl Oses {
    pub const ALL: Oses = Oses {
        linux: true,
        macos: true,
        windows: true,
        other: true,
    };
    pub const NONE: Oses = Oses {
        linux: false,
        macos: false,
        windows: false,
        other: false,
    };
    pub const LINUX: Oses = Oses {
        linux: true,
        ..Oses::NONE
    };
    pub const MACOS: Oses = Oses {
        macos: true,
        ..Oses::NONE
    };
    pub const WINDOWS: Oses = Oses {
        windows: true,
        ..Oses::NONE
    };
    /// Linux and macOS.
    pub const UNIX: Oses = Oses {
        linux: true,
        macos: true,
        ..Oses::NONE
    };
    /// Linux, macOS and Windows: the OSes with a primitive of their own for a method.
    pub const NAMED: Oses = Oses {
        other: false,
        ..Oses::ALL
    };

    pub fn contains(self, os: TargetOs) -> bool {
        match os {
            TargetOs::Linux => self.linux,
            TargetOs::Macos => self.macos,
            TargetOs::Windows => self.windows,
            TargetOs::Other => self.other,
        }
    }

    /// `Linux, Windows`, or `every OS`.
    pub fn names(self) -> String {
        if self == Oses::ALL {
            return "every OS".to_string();
        }
        [TargetOs::Linux, TargetOs::Macos, TargetOs::Windows]
            .into_iter()
            .filter(|&os| self.contains(os))
            .map(TargetOs::name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}
