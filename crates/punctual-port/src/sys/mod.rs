//! The port's platform layer: the only place in this crate that talks to the OS directly.
//!
//! The waits and stdio come from `punctual-sys`, the platform layer the workspace's crates
//! share: the timer thread's doorbell is its [`Waiter`] (the async driver's interruptible
//! wait: a futex on Linux, a kqueue on macOS, an event and a high-resolution waitable timer
//! on Windows), and stdin and stdout are its raw files. What only the port needs is here:
//! every backend provides a unit struct `Os` implementing [`Platform`], so the compiler
//! checks each against the same interface:
//!
//! | file         | used on        | SIGPIPE             | output watch     |
//! |--------------|----------------|---------------------|------------------|
//! | `linux.rs`   | Linux, Android | ignored (`unix.rs`) | `poll(2)`, fd 1  |
//! | `macos.rs`   | macOS, iOS     | ignored (`unix.rs`) | none             |
//! | `windows.rs` | Windows        | (none on Windows)   | none             |
//! | `generic.rs` | anything else  | left alone          | none             |
//!
//! `punctual_sys::backends!` picks the file, as it does for every crate of the workspace;
//! the fallback is compiled into every test build too. The rest of the crate names only
//! `sys::Os` and the items re-exported here; it never writes `cfg(target_os)`. Unsafe code
//! lives here and nowhere else.

/// A wake-up call between threads, with a precise timeout: the timer thread of protocol 2
/// blocks on it until its next deadline or until the reader rings.
pub(crate) use punctual_sys::Waiter;
/// Standard input and output as plain byte streams: no std buffer, no line buffering, no
/// newline translation (binary mode), so one `write` per flushed batch.
pub(crate) use punctual_sys::{raw_stdin, raw_stdout};

/// What every backend provides to the program.
pub(crate) trait Platform {
    /// Readies the process for pipes: a write to a closed pipe must fail, not kill.
    fn prepare_process();

    /// Ends the process with status 0 as soon as nothing reads its standard output any
    /// more, even in the middle of a sleep: an owner that is gone cannot take the answer.
    /// Returns false where the platform cannot watch for that; the program then notices at
    /// its next write, as nanosleep's does.
    fn exit_when_output_closed() -> bool;
}

#[cfg(unix)]
mod unix;

punctual_sys::backends!(Os);
