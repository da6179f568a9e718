use punctual::future::DriverConfig;

use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, TimerKind};

/// The real-time priority of `async-rt`'s threads: low among real-time priorities, high
/// above every time-sharing thread.
pub const RT_PRIORITY: i32 = 10;

/// Only the scale mode has it: what it changes is how the driver's and the executor's
/// threads are scheduled while many timers are pending.
pub const SPEC: MethodSpec = MethodSpec {
    name: "async-rt",
    about: "async, the driver thread at SCHED_FIFO 10 and the executor's while deadlines run (where allowed)",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: None,
    scale: Some(ScaleSpec {
        timer: TimerKind::Driver(|| DriverConfig::new().with_realtime_priority(RT_PRIORITY)),
        runtime: ScaleRuntime::CurrentThread,
        server: false,
    }),
};
