use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
use crate::bench::scale::mock::ScaleMockProfile;
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
        mock: ScaleMockProfile {
            base_ns: 1_000_000,
            pause_ns: 0,
            jitter_ns: 70_000,
            queue_ps: 350,
            tail_ns: 900_000,
            cpu_ns: 900,
            driver_cpu_ns: None,
            rss_bytes: 600,
            timer_bytes: 112,
            scheduling: None,
        },
        runtime: ScaleRuntime::MultiThread,
        server: Some(|args| server::run::measure(TokioTimer, args)),
    }),
};
