use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};

pub const SPEC: MethodSpec = MethodSpec {
    name: "spin",
    about: "punctual, spin strategy: a busy wait on the monotonic clock",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::ALL,
    sync: Some(SYNC),
    scale: None,
};

/// The method as one thread waits with it (`punctual grid`'s mock of the spin strategy
/// stands in for it).
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(Punctual(Sleeper::spin()))),
};
