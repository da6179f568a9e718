use super::os_wait::TimeLeftWait;
use super::timeout::timeval;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::linux::select;

pub const SPEC: MethodSpec = MethodSpec {
    name: "select",
    about: "select on no descriptors, for the time left as a timeval rounded up to the us",
    ours: false,
    runs_on: Oses::LINUX,
    os_primitive_on: Oses::LINUX,
    never_early_on: Oses::LINUX,
    sync: Some(SyncSpec {
        create: || {
            Ok(Box::new(TimeLeftWait::new(
                "select",
                Box::new(RealClock),
                timeval,
                |(seconds, micros)| select(seconds, micros),
            )))
        },
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::os_wait::tests::never_early_on_the_mock;
    use super::timeval;

    #[test]
    fn asks_for_a_timeval_rounded_up_to_the_microsecond() {
        let calls = never_early_on_the_mock(timeval, |(s, us)| {
            Duration::from_secs(s) + Duration::from_micros(u64::from(us))
        });
        assert!(calls.iter().all(|&(s, us)| s == 0 && us <= 30_000));
    }
}
