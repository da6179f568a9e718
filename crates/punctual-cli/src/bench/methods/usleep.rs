use super::os_wait::TimeLeftWait;
use super::timeout::whole_us_u32;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::windows::mingw_usleep;

pub const SPEC: MethodSpec = MethodSpec {
    name: "usleep",
    about: "the mingw C runtime's usleep for the time left in whole us rounded up",
    ours: false,
    runs_on: Oses::WINDOWS,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || {
            Ok(Box::new(TimeLeftWait::new(
                "usleep",
                Box::new(RealClock),
                whole_us_u32,
                mingw_usleep,
            )))
        },
        // mingw's usleep: whole ms on a 1 ms tick.
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::os_wait::tests::never_early_on_the_mock;
    use super::whole_us_u32;

    #[test]
    fn asks_for_whole_microseconds_rounded_up() {
        let calls =
            never_early_on_the_mock(whole_us_u32, |us| Duration::from_micros(u64::from(us)));
        assert!(calls.iter().all(|&us| us <= 30_000));
    }
}
