use std::time::Instant;

use spin_sleep::SpinSleeper;

use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};

/// The spin_sleep crate's default sleeper: native sleep less a fixed accuracy (125 us on
/// Unix), then spin.
struct SpinSleep(SpinSleeper);

impl WaitMethod for SpinSleep {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        self.0.sleep_until(deadline);
        None
    }

    fn note(&self) -> Option<String> {
        Some(format!(
            "spin_sleep: fixed native accuracy {} ns, spin strategy {:?}",
            self.0.native_accuracy_ns(),
            self.0.spin_strategy()
        ))
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "spin_sleep",
    about: "the spin_sleep crate's default SpinSleeper",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || Ok(Box::new(SpinSleep(SpinSleeper::default()))),
    }),
    scale: None,
};
