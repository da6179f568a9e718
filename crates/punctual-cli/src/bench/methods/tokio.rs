use std::time::Instant;

use crate::bench::method::{
    MethodSpec, Oses, ScaleRuntime, ScaleSpec, SyncSpec, TimerKind, WaitMethod,
};

/// `tokio::time::sleep_until` on a current-thread runtime driven by the measuring thread.
struct Tokio(tokio::runtime::Runtime);

impl WaitMethod for Tokio {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        self.0
            .block_on(async { tokio::time::sleep_until(deadline.into()).await });
        None
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "tokio",
    about: "tokio::time::sleep_until on a current-thread runtime",
    ours: false,
    runs_on: Oses::ALL,
    os_primitive_on: Oses::NONE,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()?;
            Ok(Box::new(Tokio(runtime)))
        },
    }),
    scale: Some(ScaleSpec {
        timer: TimerKind::Tokio,
        runtime: ScaleRuntime::CurrentThread,
        server: true,
    }),
};
