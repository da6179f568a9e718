use punctual::future::{DriverConfig, SpinTail};

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec};
use crate::bench::scale::mock::ScaleMockProfile;
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
        mock: ScaleMockProfile {
            base_ns: 26_000,
            pause_ns: 1_000_000,
            jitter_ns: 9_000,
            queue_ps: 550,
            tail_ns: 75_000,
            cpu_ns: 1_200,
            driver_cpu_ns: Some(350),
            rss_bytes: 660,
            timer_bytes: 80,
            scheduling: None,
        },
        runtime: ScaleRuntime::MultiThread,
        // A driver per runtime worker, each worker's timeouts on its own.
        server: Some(|args| {
            let config = DriverConfig::new().with_spin_tail(SpinTail::None);
            server::run::measure(PerWorkerTimer::new(config, args.workers as usize)?, args)
        }),
    }),
};
