//! The port's platform layer: the only place in this crate that talks to the OS directly.
//!
//! Every backend provides a unit struct `Os` implementing [`Platform`], and a `Doorbell`
//! implementing [`Bell`], so the compiler checks each against the same interface:
//!
//! | file         | used on        | stdio                  | output watch     | doorbell                           |
//! |--------------|----------------|------------------------|------------------|------------------------------------|
//! | `linux.rs`   | Linux, Android | fds 0 and 1 (`unix.rs`)| `poll(2)`, fd 1  | futex condvar (`generic.rs`)       |
//! | `macos.rs`   | macOS, iOS     | fds 0 and 1 (`unix.rs`)| none             | pthread condvar (`generic.rs`)     |
//! | `windows.rs` | Windows        | the std handles        | none             | event + high-resolution timer      |
//! | `generic.rs` | anything else  | `std::io` stdio        | none             | `std::sync::Condvar`               |
//!
//! The rest of the crate names only `sys::Os` and `sys::Doorbell`; it never writes
//! `cfg(target_os)`. Unsafe code lives here and nowhere else.

use std::io::{self, Read, Write};
use std::time::Instant;

/// What every backend provides to the program.
pub(crate) trait Platform {
    /// Readies the process for pipes: a write to a closed pipe must fail, not kill.
    fn prepare_process();

    /// The program's standard input as a plain byte stream, without std's own buffer.
    fn input() -> io::Result<Box<dyn Read + Send>>;

    /// The program's standard output as a plain byte stream: no line buffering, no
    /// newline translation (binary mode), so one `write` per flushed batch.
    fn output() -> io::Result<Box<dyn Write + Send>>;

    /// Ends the process with status 0 as soon as nothing reads its standard output any
    /// more, even in the middle of a sleep: an owner that is gone cannot take the answer.
    /// Returns false where the platform cannot watch for that; the program then notices at
    /// its next write, as nanosleep's does.
    fn exit_when_output_closed() -> bool;
}

/// A wake-up call between threads, with a precise timeout: the timer thread of protocol 2
/// blocks on it until its next deadline or until the reader rings.
pub(crate) trait Bell: Send + Sync + Sized {
    /// A bell nobody has rung.
    fn new() -> io::Result<Self>;

    /// Wakes the thread in [`Bell::wait_until`], or makes its next call return at once.
    fn ring(&self);

    /// Blocks until rung or until about `deadline` (forever for `None`). May return a
    /// little early or spuriously: the caller re-reads the clock.
    fn wait_until(&self, deadline: Option<Instant>);
}

#[cfg(unix)]
mod unix;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux;
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use linux::{Doorbell, Os};

#[cfg(any(target_os = "macos", target_os = "ios"))]
mod macos;
#[cfg(any(target_os = "macos", target_os = "ios"))]
pub(crate) use macos::{Doorbell, Os};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::{Doorbell, Os};

// Also compiled into every test build, so the fallback is known to fit the interface; the
// condvar doorbell in it serves Linux and macOS as well.
#[cfg(any(test, not(windows)))]
mod generic;
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    windows
)))]
pub(crate) use generic::{Doorbell, Os};
