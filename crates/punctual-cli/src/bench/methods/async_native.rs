use punctual::future::SpinTail;

use super::AsyncPunctual;
use crate::bench::method::MethodSpec;

pub const SPEC: MethodSpec = MethodSpec {
    name: "async",
    about: "punctual::future::sleep_until on a tokio current-thread runtime, a private driver with no spin tail",
    ours: true,
    create: || Ok(Box::new(AsyncPunctual::new("async", SpinTail::None)?)),
};
