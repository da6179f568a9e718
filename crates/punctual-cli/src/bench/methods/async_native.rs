use punctual::future::SpinTail;

use super::AsyncPunctual;
use crate::bench::method::{MethodSpec, Oses};

pub const SPEC: MethodSpec = MethodSpec {
    name: "async",
    about: "punctual::future::sleep_until on a tokio current-thread runtime, a private driver with no spin tail",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    create: || Ok(Box::new(AsyncPunctual::new("async", SpinTail::None)?)),
};
