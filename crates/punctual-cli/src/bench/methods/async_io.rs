use std::time::Instant;

use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};

/// async-io's `Timer::at`, driven by `async_io::block_on` on the measuring thread.
struct AsyncIo;

impl WaitMethod for AsyncIo {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        async_io::block_on(async_io::Timer::at(deadline));
        None
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "async-io",
    about: "async_io::Timer::at under async_io::block_on",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || Ok(Box::new(AsyncIo)),
    }),
    scale: None,
};
