//! The ways to wait that `punctual bench` compares. Each lives in one small file under
//! `methods/` and is listed once in [`METHODS`].

use std::time::{Duration, Instant};

use super::methods;
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

/// A method the bench knows by name.
#[derive(Debug, Clone, Copy)]
pub struct MethodSpec {
    /// The name `--methods` takes.
    pub name: &'static str,
    /// One line for `--help` and the docs.
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
    /// Builds the method on the measuring thread.
    pub create: fn() -> anyhow::Result<Box<dyn WaitMethod>>,
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
    methods::async_spin::SPEC,
    methods::std_sleep::SPEC,
    methods::spin_sleep::SPEC,
    methods::tokio::SPEC,
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

/// Looks a method up by name.
pub fn find(name: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.name == name)
}

/// The methods `all` stands for: those that run on every OS.
pub fn portable() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.runs_on == Oses::ALL)
}

/// The methods `os` stands for: this OS's own ways to wait.
pub fn os_primitives() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| m.os_primitive_here())
}

/// `native, hybrid, ...` (the methods that run here) for error messages.
pub fn names() -> String {
    METHODS
        .iter()
        .filter(|m| m.runs_here())
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--list-methods`: every method compiled in, with the groups it is in here, or the OSes
/// it runs on where that is not this one.
pub fn listing() -> String {
    let mut list = String::new();
    for spec in METHODS {
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
    list
}
