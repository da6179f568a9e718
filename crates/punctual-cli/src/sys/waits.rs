//! The wait primitives of `bench`'s OS methods, every OS's under the same names on every
//! OS: on its own OS the real call (`linux_waits.rs`, `macos_waits.rs`, sharing
//! `unix_waits.rs`, and `windows_waits.rs`), elsewhere the same signatures failing with `Unsupported`
//! (`absent_waits.rs`), so that each method's file compiles everywhere and says where it
//! runs through [`TargetOs`] rather than `cfg`.

#[path = "absent_waits.rs"]
mod absent;

#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
#[path = "unix_waits.rs"]
mod unix_waits;

#[cfg(any(target_os = "linux", target_os = "android"))]
#[path = "linux_waits.rs"]
pub mod linux;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub use absent::linux;

#[cfg(target_os = "macos")]
#[path = "macos_waits.rs"]
pub mod macos;
#[cfg(not(target_os = "macos"))]
pub use absent::macos;

#[cfg(windows)]
#[path = "windows_waits.rs"]
pub mod windows;
#[cfg(not(windows))]
pub use absent::windows;

/// The OSes a method can be native to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetOs {
    Linux,
    Macos,
    Windows,
    /// Anything else: only the portable methods run there.
    #[cfg_attr(
        any(
            target_os = "linux",
            target_os = "android",
            target_os = "macos",
            windows
        ),
        allow(dead_code, reason = "THIS_OS on the other OSes only")
    )]
    Other,
}

impl TargetOs {
    pub fn name(self) -> &'static str {
        match self {
            TargetOs::Linux => "Linux",
            TargetOs::Macos => "macOS",
            TargetOs::Windows => "Windows",
            TargetOs::Other => "other OSes",
        }
    }
}

/// The OS this program was built for.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub const THIS_OS: TargetOs = TargetOs::Linux;
#[cfg(target_os = "macos")]
pub const THIS_OS: TargetOs = TargetOs::Macos;
#[cfg(windows)]
pub const THIS_OS: TargetOs = TargetOs::Windows;
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    windows
)))]
pub const THIS_OS: TargetOs = TargetOs::Other;

/// The sleep a plain program on this OS calls, which `punctual probe` times: the bench
/// method that makes the call, and the call's name for the report.
#[derive(Debug, Clone, Copy)]
pub struct PlainSleep {
    pub method: &'static str,
    pub primitive: &'static str,
}

/// Win32 `Sleep()`: what C#'s `Thread.Sleep`, FPC's `Sleep` and Cheat Engine's `sleep`
/// call (Rust's `std::thread::sleep` uses a high-resolution timer since 1.75).
#[cfg(windows)]
pub const PLAIN_SLEEP: PlainSleep = PlainSleep {
    method: "sleep-ms",
    primitive: punctual_sys::PLAIN_SLEEP,
};
#[cfg(any(target_os = "linux", target_os = "android"))]
pub const PLAIN_SLEEP: PlainSleep = PlainSleep {
    method: "nanosleep",
    primitive: "nanosleep() at the default timer slack",
};
#[cfg(target_os = "macos")]
pub const PLAIN_SLEEP: PlainSleep = PlainSleep {
    method: "nanosleep",
    primitive: "nanosleep()",
};
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    windows
)))]
pub const PLAIN_SLEEP: PlainSleep = PlainSleep {
    method: "std",
    primitive: "std::thread::sleep",
};

/// A clock and its ticks per second (as timetest.exe names it: `QPC Timer is 10000000 Hz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TickClock {
    pub name: &'static str,
    pub hz: u64,
}

impl TickClock {
    /// What `Instant` counts in where nothing better is known: nanoseconds.
    #[allow(dead_code, reason = "the absent OSes' stand-in")]
    pub const NANOSECONDS: TickClock = TickClock {
        name: "Instant",
        hz: 1_000_000_000,
    };
}

/// The clock `Instant` reads on this OS, and its frequency.
pub fn instant_clock() -> TickClock {
    match THIS_OS {
        TargetOs::Linux => linux::instant_clock(),
        TargetOs::Macos => macos::instant_clock(),
        TargetOs::Windows => windows::instant_clock(),
        TargetOs::Other => TickClock::NANOSECONDS,
    }
}
