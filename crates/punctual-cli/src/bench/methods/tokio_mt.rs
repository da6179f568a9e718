use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
use crate::bench::scale::timers::TokioTimer;
use crate::bench::scale::{server, worker};

pub const SPEC: MethodSpec = MethodSpec {
    name: "tokio-mt",
    about: "tokio::time::sleep_until on a tokio multi-thread runtime with a worker per CPU",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        measure: |args| worker::measure(TokioTimer, args),
        runtime: ScaleRuntime::MultiThread,
        server: Some(|args| server::run::measure(TokioTimer, args)),
    }),
};
