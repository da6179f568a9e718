//! macOS's real-time controls, in `rt.rs`. The waits are `punctual-sys`'s.

mod rt;

pub(crate) struct Os;
