use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::bench::methods::mock::MockProfile;

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

/// The method as one thread waits with it, and as `punctual grid`'s mock of the spin strategy.
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(Punctual(Sleeper::spin()))),
    mock: MockProfile::new(20, 30, 0, 0, 1.0).reporting(160),
};
