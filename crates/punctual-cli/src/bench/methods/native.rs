use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::MethodSpec;

pub const SPEC: MethodSpec = MethodSpec {
    name: "native",
    about: "punctual, native strategy: the OS's best high-resolution timer, no spinning",
    ours: true,
    create: || Ok(Box::new(Punctual(Sleeper::native()))),
};
