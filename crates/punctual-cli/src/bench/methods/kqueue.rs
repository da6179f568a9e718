use super::os_wait::TimeLeftWait;
use super::timeout::nanos;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::macos::Kqueue;

pub const SPEC: MethodSpec = MethodSpec {
    name: "kqueue",
    about: "a one-shot kqueue timer (NOTE_NSECONDS) for the time left",
    ours: false,
    runs_on: Oses::MACOS,
    os_primitive_on: Oses::MACOS,
    never_early_on: Oses::MACOS,
    sync: Some(SyncSpec {
        create: || {
            let kqueue = Kqueue::new()?;
            Ok(Box::new(TimeLeftWait::new(
                "kqueue",
                Box::new(RealClock),
                nanos,
                move |ns| kqueue.wait_ns(ns),
            )))
        },
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::os_wait::tests::never_early_on_the_mock;
    use super::nanos;

    #[test]
    fn asks_for_the_time_left_in_nanoseconds() {
        let calls = never_early_on_the_mock(nanos, Duration::from_nanos);
        assert!(calls.iter().all(|&ns| ns < 30_000_000));
    }
}
