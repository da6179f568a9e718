use super::os_wait::TimeLeftWait;
use super::timeout::whole_ms_u32;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::windows::sleep_ms;

pub const SPEC: MethodSpec = MethodSpec {
    name: "sleep-ms",
    about: "Win32 Sleep for the time left in whole ms rounded up (what Sleep(1) callers get)",
    ours: false,
    runs_on: Oses::WINDOWS,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || {
            Ok(Box::new(TimeLeftWait::new(
                "sleep-ms",
                Box::new(RealClock),
                whole_ms_u32,
                |ms| {
                    sleep_ms(ms);
                    Ok(())
                },
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
    use super::whole_ms_u32;

    #[test]
    fn asks_for_whole_milliseconds_rounded_up() {
        let calls =
            never_early_on_the_mock(whole_ms_u32, |ms| Duration::from_millis(u64::from(ms)));
        assert!(calls.iter().all(|&ms| ms <= 30));
    }
}
