use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::bench::methods::mock::MockProfile;

pub const SPEC: MethodSpec = MethodSpec {
    name: "native",
    about: "punctual, native strategy: the OS's best high-resolution timer, no spinning",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NAMED,
    never_early_on: Oses::ALL,
    sync: Some(SYNC),
    scale: None,
};

/// The method as one thread waits with it, and as `punctual grid`'s mock of the native strategy.
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(Punctual(Sleeper::native()))),
    mock: MockProfile::new(18_000, 6_000, 250_000, 3_000, 0.0).reporting(60),
};
