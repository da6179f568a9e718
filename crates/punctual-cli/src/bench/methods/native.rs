use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::{MethodSpec, Oses};

pub const SPEC: MethodSpec = MethodSpec {
    name: "native",
    about: "punctual, native strategy: the OS's best high-resolution timer, no spinning",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NAMED,
    never_early_on: Oses::ALL,
    create: || Ok(Box::new(Punctual(Sleeper::native()))),
};
