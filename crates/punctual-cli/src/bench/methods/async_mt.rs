use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
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
        runtime: ScaleRuntime::MultiThread,
        server: Some(|args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            server::run::measure(PunctualTimer::new(config)?, args)
        }),
    }),
};
