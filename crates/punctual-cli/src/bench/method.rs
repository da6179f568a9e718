//! The ways to wait that `punctual bench` compares. Each lives in one small file under
//! `methods/`, as one [`MethodSpec`] with every part the bench has of it, and is listed once
//! in [`METHODS`]. Names are for the command line and the outputs; the program asks the
//! spec.

use std::time::{Duration, Instant};

use super::methods;
use super::methods::mock::MockProfile;
use super::scale::mock::ScaleMockProfile;
use super::scale::server::run::ServerArgs;
use super::scale::server::ServerResult;
use super::scale::worker::WorkerArgs;
use super::scale::ScaleResult;
use super::worker::Measured;
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
/// a file of its own under `methods/`, listed once in [`METHODS`]. Each part carries its
/// mock, so a part without one does not compile; a method without a part says `None` for
/// it, so forgetting one does not compile either.
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
    /// How its stand-in wakes under `--mock-timer`.
    pub mock: MockProfile,
}

/// A method as the scale mode runs N of its timers at once.
#[derive(Debug, Clone, Copy)]
pub struct ScaleSpec {
    /// Measures N of its timers; runs in a worker process of its own.
    pub measure: fn(&WorkerArgs) -> anyhow::Result<ScaleResult>,
    /// The scale mode's model of it under `--mock-timer`.
    pub mock: ScaleMockProfile,
    /// The tokio runtime its tasks run on.
    pub runtime: ScaleRuntime,
    /// Measures it under `--workload server`, in a worker process of its own; `None` when
    /// that workload leaves it out.
    pub server: Option<fn(&ServerArgs) -> anyhow::Result<ServerResult>>,
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

/// Every method compiled in, in the order tables list them.
pub const METHODS: &[MethodSpec] = &[
    methods::native::SPEC,
    methods::hybrid::SPEC,
    methods::spin::SPEC,
    methods::async_native::SPEC,
    methods::async_rt::SPEC,
    methods::async_spin::SPEC,
    methods::std_sleep::SPEC,
    methods::spin_sleep::SPEC,
    methods::tokio::SPEC,
    methods::async_mt::SPEC,
    methods::async_mtw::SPEC,
    methods::tokio_mt::SPEC,
    methods::async_io::SPEC,
    methods::nanosleep::SPEC,
    methods::timerfd::SPEC,
    methods::epoll::SPEC,
    methods::poll::SPEC,
    methods::select::SPEC,
    methods::sched_yield::SPEC,
    methods::kqueue::SPEC,
    methods::sleep_ms::SPEC,
    methods::sleep_ms_period1::SPEC,
    methods::waitable_timer::SPEC,
    methods::hybrid_fixed::SPEC,
    methods::usleep::SPEC,
];

/// The methods one thread waits with, in table order.
pub fn sync_methods() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.sync.is_some())
}

/// The methods the scale mode runs, in table order.
pub fn scale_methods() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.scale.is_some())
}

/// The methods the server workload runs, in table order.
pub fn server_methods() -> impl Iterator<Item = &'static MethodSpec> {
    scale_methods().filter(|m| m.scale.is_some_and(|scale| scale.server.is_some()))
}

/// The server workload's methods, for error messages.
pub fn server_names() -> String {
    join(server_methods())
}

/// The methods `all` stands for in the scale mode: those on a current-thread runtime.
pub fn default_scale_methods() -> impl Iterator<Item = &'static MethodSpec> {
    scale_methods().filter(|m| {
        m.scale
            .is_some_and(|scale| scale.runtime == ScaleRuntime::CurrentThread)
    })
}

/// Looks a method up by the name `--methods` gives it: the command line's boundary.
pub fn find(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

/// The methods `all` stands for: the single-thread methods that run on every OS.
pub fn portable() -> impl Iterator<Item = &'static MethodSpec> {
    sync_methods().filter(|m| m.runs_on == Oses::ALL)
}

/// The methods `os` stands for: this OS's own ways to wait.
pub fn os_primitives() -> impl Iterator<Item = &'static MethodSpec> {
    sync_methods().filter(|m| m.os_primitive_here())
}

/// Where `spec` stands in [`METHODS`], for sorting by table order.
pub fn position(spec: &MethodSpec) -> Option<usize> {
    METHODS.iter().position(|m| m.name == spec.name)
}

fn join<'a>(names: impl Iterator<Item = &'a MethodSpec>) -> String {
    names.map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// `native, hybrid, ...` (the single-thread methods that run here) for error messages.
pub fn names() -> String {
    join(sync_methods().filter(|m| m.runs_here()))
}

/// `async, async-rt, async-spin, tokio` for error messages.
pub fn scale_names() -> String {
    join(scale_methods())
}

/// The methods only the scale mode has, for error messages.
pub fn scale_only_names() -> String {
    join(METHODS.iter().filter(|m| m.scale_only()))
}

/// `--list-methods`: every single-thread method compiled in, in table order, with the
/// groups it is in here, or the OSes it runs on where that is not this one; then those only
/// the scale mode has.
pub fn listing() -> String {
    let mut list = String::new();
    for spec in sync_methods() {
        let ours = if spec.ours { " (ours)" } else { "" };
        let groups = match (spec.runs_on == Oses::ALL, spec.os_primitive_here()) {
            _ if !spec.runs_here() => format!("{} only, not this OS", spec.runs_on.names()),
            (true, true) => "all, os".to_string(),
            (true, false) => "all".to_string(),
            (false, _) => format!("os; runs on {}", spec.runs_on.names()),
        };
        let never_early = if spec.never_early_here() {
            "; never early"
        } else {
            ""
        };
        list.push_str(&format!(
            "{:<16} {}{ours} [{groups}{never_early}]\n",
            spec.name, spec.about
        ));
    }
    for spec in METHODS.iter().filter(|spec| spec.scale_only()) {
        let ours = if spec.ours { " (ours)" } else { "" };
        list.push_str(&format!(
            "{:<16} {}{ours} (--scale only)\n",
            spec.name, spec.about
        ));
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--methods`, the tables and the worker processes know a method by its name alone.
    #[test]
    fn every_method_has_a_name_of_its_own() {
        for (i, spec) in METHODS.iter().enumerate() {
            let first = METHODS.iter().position(|m| m.name == spec.name);
            assert_eq!(first, Some(i), "`{}` is listed twice", spec.name);
        }
    }

    /// A method with neither part could be named but never measured.
    #[test]
    fn every_method_has_a_part_to_measure() {
        for spec in METHODS {
            assert!(
                spec.sync.is_some() || spec.scale.is_some(),
                "`{}` has neither a sync nor a scale part",
                spec.name
            );
        }
    }
}
