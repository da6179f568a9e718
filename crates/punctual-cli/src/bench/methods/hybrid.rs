use punctual::Sleeper;

use super::Punctual;
use crate::bench::method::MethodSpec;

pub const SPEC: MethodSpec = MethodSpec {
    name: "hybrid",
    about: "punctual, hybrid strategy (the default): native sleep, then a learned spin tail",
    ours: true,
    create: || Ok(Box::new(Punctual(Sleeper::hybrid()))),
};
