use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
use crate::bench::scale::timers::PerWorkerTimer;
use crate::bench::scale::{server, worker};

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
        measure: |args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            let workers = std::thread::available_parallelism().map_or(1, usize::from);
            worker::measure(PerWorkerTimer::new(config, workers)?, args)
        },
        runtime: ScaleRuntime::MultiThread,
        // A driver per runtime worker, each worker's timeouts on its own.
        server: Some(|args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            server::run::measure(PerWorkerTimer::new(config, args.workers as usize)?, args)
        }),
    }),
};
