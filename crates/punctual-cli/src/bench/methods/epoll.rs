use super::os_wait::TimeLeftWait;
use super::timeout::whole_ms_i32;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::linux::Epoll;

pub const SPEC: MethodSpec = MethodSpec {
    name: "epoll",
    about:
        "epoll_wait on nothing, for the time left in whole ms rounded up (tokio's and mio's wait)",
    ours: false,
    runs_on: Oses::LINUX,
    os_primitive_on: Oses::LINUX,
    never_early_on: Oses::LINUX,
    sync: Some(SyncSpec {
        create: || {
            let epoll = Epoll::new()?;
            Ok(Box::new(TimeLeftWait::new(
                "epoll",
                Box::new(RealClock),
                whole_ms_i32,
                move |ms| epoll.wait_ms(ms),
            )))
        },
        // A whole-ms timeout rounded up: it lands anywhere in the next millisecond.
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::os_wait::tests::never_early_on_the_mock;
    use super::whole_ms_i32;

    #[test]
    fn asks_for_whole_milliseconds_rounded_up() {
        let calls = never_early_on_the_mock(whole_ms_i32, |ms| Duration::from_millis(ms as u64));
        assert!(calls.iter().all(|&ms| (0..=30).contains(&ms)));
    }
}
