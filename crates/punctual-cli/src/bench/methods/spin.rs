use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses};

pub const SPEC: MethodSpec = MethodSpec {
    name: "spin",
    about: "punctual, spin strategy: a busy wait on the monotonic clock",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::ALL,
    create: || Ok(Box::new(Punctual(Sleeper::spin()))),
};
