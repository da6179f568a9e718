//! `punctual-port`: sleeps for the BEAM, as a port program built on punctual.
//!
//! Erlang's timers count milliseconds. A port program that sleeps on the OS's
//! high-resolution timer and then answers wakes an Erlang process within microseconds.
//! This crate is that program (the `punctual-port` binary) and the pieces it is made of,
//! exposed for tests, fuzzing and other clients:
//!
//! - [`frame`]: `{packet, 2}` framing, read through a buffer and written in batches.
//! - [`protocol1::wire`]: nanosleep 0.3's protocol, one signed 64-bit request at a time.
//! - [`protocol2::wire`]: many outstanding wakes, tagged with ids, on the port's
//!   [`clock`].
//! - [`run`]: the whole program, from its arguments to its [`Exit`] status.
//!
//! The byte-by-byte description of both protocols is `docs/port-protocol.md`.
//!
//! ```
//! use punctual_port::frame::FrameReader;
//! use punctual_port::protocol1::wire;
//!
//! let input: &[u8] = &[0, 8, 0, 0, 0, 0, 0, 0, 0x03, 0xE8];
//! let mut frames = FrameReader::new(input);
//! let request = frames.next_frame().unwrap().unwrap();
//! assert_eq!(wire::decode_request(request), Ok(1_000));
//! ```
//!
//! # Platform notes
//!
//! - **Linux**: sleeps with `clock_nanosleep` (protocol 1) or a futex wait (protocol 2)
//!   at 1 ns of timer slack; a thread polls stdout so that the program exits as soon as
//!   its owner has gone, even mid-sleep.
//! - **macOS**: `mach_wait_until` (protocol 1) or a kqueue timer (protocol 2).
//! - **Windows**: a high-resolution waitable timer (for protocol 2 waited on with an
//!   event); pipes are read and written as raw handles, in binary.

#![deny(missing_docs, missing_debug_implementations, unsafe_code)]

mod cli;
pub mod clock;
mod exit;
pub mod frame;
mod options;
mod priority;
pub mod protocol1;
pub mod protocol2;
#[allow(unsafe_code)]
mod sys;

use std::ffi::OsString;

use clap::Parser;

pub use exit::Exit;

use crate::cli::Cli;
use crate::options::{Options, Protocol};
use crate::priority::Priority;
use crate::sys::Platform;

/// Runs the program with `args` (the program name first) on this process's stdin and
/// stdout, until its owner goes away or the input is malformed.
pub fn run(args: impl IntoIterator<Item = OsString>) -> Exit {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return Exit::Done;
        }
        Err(e) => {
            let _ = e.print();
            return Exit::Usage;
        }
    };
    let options = match Options::try_from(cli) {
        Ok(options) => options,
        Err(conflict) => {
            eprintln!("punctual-port: {conflict}");
            return Exit::Usage;
        }
    };
    sys::Os::prepare_process();
    let (input, output) = match (sys::raw_stdin(), sys::raw_stdout()) {
        (Ok(input), Ok(output)) => (input, output),
        (Err(e), _) | (_, Err(e)) => return Exit::setup("stdin and stdout", &e),
    };
    match options.protocol {
        Protocol::One {
            strategy,
            spin_tail,
        } => match Priority::apply_or_exit(options.realtime, true) {
            Ok(priority) => protocol1::serve(
                input,
                output,
                protocol1::Waiter::new(strategy, spin_tail),
                priority,
            ),
            Err(exit) => exit,
        },
        Protocol::Two(config) => protocol2::serve(input, output, config, options.realtime),
    }
}
