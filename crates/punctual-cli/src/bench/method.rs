//! The ways to wait that `punctual bench` compares. Each lives in one small file under
//! `methods/` and is listed once in [`METHODS`].

use std::time::{Duration, Instant};

use super::methods;

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

/// A method the bench knows by name.
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    /// The name `--methods` takes.
    pub name: &'static str,
    /// One line for `--help` and the docs.
    pub about: &'static str,
    /// Whether this is one of punctual's own methods (as opposed to a peer).
    pub ours: bool,
    /// Builds the method on the measuring thread.
    pub create: fn() -> anyhow::Result<Box<dyn WaitMethod>>,
}

/// Every method compiled in, in the order tables list them.
pub const METHODS: &[MethodSpec] = &[
    methods::native::SPEC,
    methods::hybrid::SPEC,
    methods::spin::SPEC,
    methods::async_native::SPEC,
    methods::async_spin::SPEC,
    methods::std_sleep::SPEC,
    methods::spin_sleep::SPEC,
    methods::tokio::SPEC,
    methods::async_io::SPEC,
];

/// Looks a method up by name.
pub fn find(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

/// `native, hybrid, ...` for error messages.
pub fn names() -> String {
    METHODS
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}
