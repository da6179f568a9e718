use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, TimerKind};

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-mt",
    about: "as async, on a tokio multi-thread runtime with a worker per CPU: one private driver for all of them",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        timer: TimerKind::Driver(|| DriverConfig::new().with_spin_tail(SpinTail::None)),
        runtime: ScaleRuntime::MultiThread,
        server: true,
    }),
};
