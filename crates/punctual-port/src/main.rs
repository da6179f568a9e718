//! The `punctual-port` binary; see the library docs and `docs/port-protocol.md`.

#![deny(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(punctual_port::run(std::env::args_os()).code())
}
