//! The module's platform layer. Its one primitive, the OS's plain sleep that `probe()` times
//! (Win32 `Sleep` on Windows, as Cheat Engine's `sleep` calls it), is `punctual-sys`'s, the
//! workspace's one home for it (the CLI's `punctual probe` times the same call); named here
//! so that the rest of the module needs no OS of its own.

pub use punctual_sys::{plain_sleep, PLAIN_SLEEP};
