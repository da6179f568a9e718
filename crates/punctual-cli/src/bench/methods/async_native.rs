use punctual::future::{DriverConfig, SpinTail};

use super::AsyncPunctual;
use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, SyncSpec, TimerKind};

pub const SPEC: MethodSpec = MethodSpec {
    name: "async",
    about: "punctual::future::sleep_until on a tokio current-thread runtime, a private driver with no spin tail",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || Ok(Box::new(AsyncPunctual::new(SPEC.name, SpinTail::None)?)),
    }),
    scale: Some(ScaleSpec {
        timer: TimerKind::Driver(|| DriverConfig::new().with_spin_tail(SpinTail::None)),
        runtime: ScaleRuntime::CurrentThread,
        server: true,
    }),
};
