//! libpunctual: the C ABI of the [`punctual`] library, declared in `include/punctual.h`.
//!
//! Every exported function is a thin conversion: integer nanoseconds in, a status code and
//! a versioned report out, the waiting done by `punctual` itself. The crate adds no timing
//! logic; what it adds is what a C caller needs and Rust callers get from the type system:
//!
//! - **Status codes** (`status.rs`): every call that can fail returns `PUNCTUAL_OK` or a
//!   negative `PUNCTUAL_E_*` code, leaves the message (with the fix, where there is one)
//!   for `punctual_last_error_message()` and catches any panic before it reaches C.
//! - **Handles** (`handle.rs`): opaque values that are keys into a registry, never pointers
//!   to memory, so a freed, doubly freed, foreign or made-up handle is an error code, and a
//!   handle freed while another thread sleeps on it stays alive until that sleep ends.
//! - **The clock** (`clock.rs`): `punctual_now_ns()` is the OS monotonic clock that
//!   [`std::time::Instant`] reads (`CLOCK_MONOTONIC` on Linux, `QueryPerformanceCounter` on
//!   Windows), and deadlines convert to `Instant`s so that none ever comes early.
//! - **Pointers** (`sys/`): every read and write through a C pointer, every call of a C
//!   callback and the OS clock reading live in `sys`, the crate's only unsafe code.
//!
//! The header is generated from this crate by cbindgen (`tests/header.rs` checks that the
//! committed `include/punctual.h` is what it generates; `PUNCTUAL_BLESS=1` rewrites it).

#![deny(missing_docs, missing_debug_implementations)]
// The exported items carry the C names the header declares.
#![allow(non_camel_case_types)]

mod api;
mod clock;
mod handle;
mod status;
#[allow(unsafe_code)]
mod sys;

pub use api::*;
pub use status::*;

// A panic must be caught at the boundary (`status::guard`); under panic=abort it would end
// the host process instead.
#[cfg(not(panic = "unwind"))]
compile_error!(
    "libpunctual must be built with panic = \"unwind\": it catches every panic before it reaches C"
);
