//! The crate's only unsafe code: the OS monotonic clock, reads and writes through pointers
//! that C passed in, and calls of C callbacks.
//!
//! Every entry point hands its C pointers here; the functions check for `NULL` and
//! alignment and rely, for the rest, on the contract `punctual.h` states for each
//! parameter (a non-`NULL` pointer points to a live object of its type).

mod clock;
mod ptr;

pub(crate) use clock::monotonic_ns;
pub(crate) use ptr::{
    call_condition, call_hook, call_sleep, check_report, read_slice, write, write_report,
    write_slice, Report,
};
