use std::time::Instant;

use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};

/// What a naive program does: `std::thread::sleep` for the time left.
struct StdSleep;

impl WaitMethod for StdSleep {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        None
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "std",
    about: "std::thread::sleep for the time left",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || Ok(Box::new(StdSleep)),
    }),
    scale: None,
};
