use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::MethodSpec;

pub const SPEC: MethodSpec = MethodSpec {
    name: "spin",
    about: "punctual, spin strategy: a busy wait on the monotonic clock",
    ours: true,
    create: || Ok(Box::new(Punctual(Sleeper::spin()))),
};
