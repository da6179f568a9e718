//! Linux's real-time controls: `rt.rs` (slack, DMA latency, memory locking, throttling),
//! `sched.rs` (policy and priority) and `affinity.rs`. The waits are `punctual-sys`'s.

mod affinity;
mod rt;
mod sched;

pub(crate) struct Os;
