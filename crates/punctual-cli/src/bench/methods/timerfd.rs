use std::time::Instant;

use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};
use crate::sys::waits::linux::TimerFd;

/// A `CLOCK_MONOTONIC` timerfd armed for the deadline itself (`TFD_TIMER_ABSTIME`), then
/// read: an absolute wait, as an event loop built on timerfds makes it, at the thread's
/// timer slack.
struct AbsoluteTimerFd {
    timer: TimerFd,
    failures: u64,
}

impl WaitMethod for AbsoluteTimerFd {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        if self.timer.wait_until(deadline).is_err() {
            self.failures += 1;
        }
        None
    }

    fn note(&self) -> Option<String> {
        (self.failures > 0).then(|| format!("timerfd: {} of its waits failed", self.failures))
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "timerfd",
    about: "a timerfd armed for the deadline (absolute), then read",
    ours: false,
    runs_on: Oses::LINUX,
    os_primitive_on: Oses::LINUX,
    never_early_on: Oses::LINUX,
    sync: Some(SyncSpec {
        create: || {
            Ok(Box::new(AbsoluteTimerFd {
                timer: TimerFd::new()?,
                failures: 0,
            }))
        },
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::SPEC;

    /// The absolute deadline's conversion to `CLOCK_MONOTONIC` is the method's only logic,
    /// and only the real clock can check it: short real waits, never early.
    #[test]
    fn wakes_at_or_after_each_deadline() {
        if !SPEC.runs_here() {
            assert!(
                (SPEC.sync().unwrap().create)().is_err(),
                "timerfd must refuse to run off Linux"
            );
            return;
        }
        let mut method = (SPEC.sync().unwrap().create)().unwrap();
        for wait_us in [0, 1, 50, 200, 1_000] {
            let deadline = Instant::now() + Duration::from_micros(wait_us);
            method.wait_until(deadline);
            assert!(Instant::now() >= deadline);
        }
        assert_eq!(method.note(), None);
    }
}
