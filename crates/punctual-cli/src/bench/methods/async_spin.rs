use punctual::future::{DriverConfig, SpinTail};
use punctual::HybridConfig;

use super::AsyncPunctual;
use crate::bench::method::{MethodSpec, Oses, ScaleRuntime, ScaleSpec, SyncSpec, TimerKind};

/// The spin tail the `async-spin` method (and its scale twin) runs with: the learned
/// margin, with up to half of each sleep spun. The end-to-end delay it covers (the driver's
/// oversleep plus the executor's wake, about 30 us on a virtual machine) is more than the
/// quarter of a 100 us sleep that the thread sleeper's default budget allows.
pub fn tail() -> SpinTail {
    SpinTail::Learned(HybridConfig::new().with_budget(0.5))
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-spin",
    about: "as async, with the learned spin tail (budget: half of each sleep): the timer fires early, the task spins to the deadline",
    ours: true,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SYNC),
    scale: Some(ScaleSpec {
        timer: TimerKind::Driver(|| DriverConfig::new().with_spin_tail(tail())),
        runtime: ScaleRuntime::CurrentThread,
        server: false,
    }),
};

/// The method as one thread waits with it (`--frontier` runs it too).
pub const SYNC: SyncSpec = SyncSpec {
    create: || Ok(Box::new(AsyncPunctual::new(SPEC.name, tail())?)),
};
