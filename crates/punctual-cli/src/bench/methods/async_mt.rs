use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
use crate::bench::scale::mock::ScaleMockProfile;
use crate::bench::scale::timers::PunctualTimer;
use crate::bench::scale::{server, worker};

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-mt",
    about: "as async, on a tokio multi-thread runtime with a worker per CPU: one private driver for all of them",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        measure: |args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            worker::measure(PunctualTimer::new(config)?, args)
        },
        mock: ScaleMockProfile {
            base_ns: 24_000,
            pause_ns: 1_000_000,
            jitter_ns: 9_000,
            queue_ps: 600,
            tail_ns: 70_000,
            cpu_ns: 1_100,
            driver_cpu_ns: Some(300),
            rss_bytes: 650,
            timer_bytes: 76,
            scheduling: None,
        },
        runtime: ScaleRuntime::MultiThread,
        server: Some(|args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            server::run::measure(PunctualTimer::new(config)?, args)
        }),
    }),
};
