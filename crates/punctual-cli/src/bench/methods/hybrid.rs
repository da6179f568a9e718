use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::bench::methods::mock::MockProfile;

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

/// The method as one thread waits with it, and as `punctual grid`'s mock of the hybrid strategy.
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(Punctual(Sleeper::hybrid()))),
    mock: MockProfile::new(30, 60, 20_000, 9_000, 0.0)
        .reporting(120)
        .counting_spins(),
};
