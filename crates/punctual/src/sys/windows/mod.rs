//! Windows's real-time controls, in `rt.rs`. The waits are `punctual-sys`'s.

mod rt;
mod timer_resolution;

pub(crate) struct Os;
