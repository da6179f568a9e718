//! The CLI's platform layer: resident memory, load-thread priorities, the facts of the
//! environment header, thread ids, machine-wide CPU time and Ctrl-C. The thread and process
//! CPU clocks and the coarse clock are `punctual-sys`'s, the platform layer the workspace's
//! crates share, and the scheduling facts `punctual::rt`'s; [`Platform`] names them once for
//! every OS. The rest of the CLI names only `sys::Os` and the types here; it never writes
//! `cfg(target_os)`.
//!
//! | file         | used on        |
//! |--------------|----------------|
//! | `linux.rs`   | Linux, Android |
//! | `macos.rs`   | macOS, iOS     |
//! | `windows.rs` | Windows        |
//! | `generic.rs` | anything else, and every test build (so it is known to fit) |
//!
//! `unix.rs` holds what Linux and macOS share; `punctual_sys::backends!` picks the file,
//! as it does for every crate of the workspace. `waits.rs` holds the wait primitives of
//! `bench`'s OS methods, every OS's on every OS (`linux_waits.rs`, `macos_waits.rs`,
//! `windows_waits.rs`, and `absent_waits.rs` for the others).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Set by the first Ctrl-C once [`Platform::catch_interrupt`] is in place; a second Ctrl-C
/// ends the process at once with exit code 130.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How a background load thread should be prioritised against the measuring threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPriority {
    Lower,
    Same,
    Higher,
}

/// Facts for the environment header; `None` where this platform cannot tell.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub os: String,
    pub kernel: Option<String>,
    pub cpu_model: Option<String>,
    pub clocksource: Option<String>,
    pub timer_slack: Option<Duration>,
    pub scheduler_tick: Option<Duration>,
    pub virtualization: Option<String>,
    pub realtime_kernel: Option<bool>,
    pub preemption: Option<String>,
    pub idle_governor: Option<String>,
    pub idle_states: Vec<String>,
    pub cpufreq_governor: Option<String>,
    pub scheduling: Option<String>,
    pub timer_resolution: Option<String>,
    pub timer_throttling: Option<String>,
}

/// What `uname(2)` tells, for the `sysinfo` of the rt-tests JSON layout.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemInfo {
    pub sysname: String,
    pub nodename: String,
    pub release: String,
    pub version: String,
    pub machine: String,
}

/// CPU time of all CPUs together since boot: busy (anything but idle, counting interrupts and
/// time a hypervisor stole) and in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTimes {
    pub busy: Duration,
    pub total: Duration,
}

/// A clock that only moves on the scheduler tick, the ruler a naive program times with.
pub use punctual_sys::CoarseClock;

pub trait Platform {
    /// CPU time the calling thread has used so far.
    fn thread_cpu_time() -> Option<Duration> {
        punctual_sys::thread_cpu_time()
    }

    /// Names the clock behind [`Platform::thread_cpu_time`] and its grain, or says there is none.
    const THREAD_CPU_CLOCK: &'static str;

    /// CPU time every thread of this process has used so far.
    fn process_cpu_time() -> Option<Duration> {
        punctual_sys::process_cpu_time()
    }

    /// Memory of this process resident now, in bytes.
    fn resident_bytes() -> Option<u64>;

    /// Reprioritises the calling thread; describes what it got, or why it was refused.
    fn set_load_priority(priority: LoadPriority) -> Result<String, String>;

    /// The tick-granular clock of this OS, if it has one.
    fn coarse_clock() -> Option<CoarseClock> {
        punctual_sys::coarse_clock()
    }

    /// What the environment header shows.
    fn facts() -> Facts;

    /// The calling thread's id as the OS's tools show it (what cyclictest prints in `T:`).
    fn thread_id() -> u64;

    /// The names `uname(2)` gives, or their nearest equivalents.
    fn system_info() -> SystemInfo;

    /// CPU time of the whole machine so far, to tell how busy it was during a run.
    fn cpu_times() -> Option<CpuTimes>;

    /// Asks the C allocator to free at once rather than defer, so that freeing many small
    /// blocks never ends in one long pause; says what it changed, if anything. A scale
    /// worker calls it first, since its executor frees 100,000 tasks a round.
    fn steady_allocator() -> Option<&'static str> {
        None
    }

    /// Turns Ctrl-C into [`INTERRUPTED`], so a long run can stop and still report; returns
    /// whether the handler is in place.
    fn catch_interrupt() -> bool;

    /// Makes `command` start where the console's Ctrl-C does not reach it, so that its
    /// parent decides when it stops (a scale worker, told through its standard input): on
    /// Unix a process group of its own, on Windows a new process group, for which Windows
    /// turns Ctrl-C off.
    fn beyond_ctrl_c(command: &mut std::process::Command) {
        let _ = command;
    }
}

#[cfg(unix)]
mod unix;

pub mod waits;

punctual_sys::backends!(Os);
