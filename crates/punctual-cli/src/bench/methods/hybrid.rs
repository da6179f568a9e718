use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};

pub const SPEC: MethodSpec = MethodSpec {
    name: "hybrid",
    about: "punctual, hybrid strategy (the default): native sleep, then a learned spin tail",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::ALL,
    sync: Some(SYNC),
    scale: None,
};

/// The method as one thread waits with it (`punctual grid`'s mock of the hybrid strategy
/// stands in for it).
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(Punctual(Sleeper::hybrid()))),
};
