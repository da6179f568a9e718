//! The backends behind the crate's public items, one per OS, picked by [`crate::backends`].

#[cfg(unix)]
mod unix;

crate::backends!(Os, Waiter);

#[cfg(any(target_os = "macos", target_os = "ios"))]
pub(crate) use macos::nanos_to_ticks;
