use super::os_wait::TimeLeftWait;
use super::timeout::hundreds_of_ns;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::windows::WaitableTimer;

pub const SPEC: MethodSpec = MethodSpec {
    name: "waitable-timer",
    about: "a normal-resolution waitable timer set for the time left (100 ns units)",
    ours: false,
    runs_on: Oses::WINDOWS,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || {
            let timer = WaitableTimer::normal()?;
            Ok(Box::new(TimeLeftWait::new(
                "waitable-timer",
                Box::new(RealClock),
                hundreds_of_ns,
                move |due| timer.wait_100ns(due),
            )))
        },
        // Windows' default 15.625 ms tick.
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::os_wait::tests::never_early_on_the_mock;
    use super::hundreds_of_ns;

    #[test]
    fn asks_for_the_time_left_in_100ns_rounded_up() {
        let calls =
            never_early_on_the_mock(hundreds_of_ns, |due| Duration::from_nanos(due as u64 * 100));
        assert!(calls.iter().all(|&due| (0..=300_000).contains(&due)));
    }
}
