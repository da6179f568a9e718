use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, TimerKind};

pub const SPEC: MethodSpec = MethodSpec {
    name: "tokio-mt",
    about: "tokio::time::sleep_until on a tokio multi-thread runtime with a worker per CPU",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        timer: TimerKind::Tokio,
        runtime: ScaleRuntime::MultiThread,
        server: true,
    }),
};
