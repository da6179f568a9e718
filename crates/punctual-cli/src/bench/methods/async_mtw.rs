use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, TimerKind};

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-mtw",
    about:
        "as async-mt, with a private driver per runtime worker (each worker's sleeps on its own)",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        // A driver per runtime worker, each worker's timers on its own.
        timer: TimerKind::DriverPerWorker(|| DriverConfig::new().with_spin_tail(SpinTail::None)),
        runtime: ScaleRuntime::MultiThread,
        server: true,
    }),
};
