//! Anything else: `std::thread::sleep`, whatever the platform makes of it.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`Platform`].

use std::time::{Duration, Instant};

use super::Platform;
use crate::TimerInfo;

pub(crate) struct Os;

impl Platform for Os {
    const INITIAL_MARGIN: Duration = Duration::from_millis(2);

    fn wait_until(deadline: Instant, now: Instant) {
        std::thread::sleep(deadline.saturating_duration_since(now));
    }

    fn timer_info() -> TimerInfo {
        TimerInfo {
            mechanism: "std::thread::sleep",
            high_resolution: false,
            resolution: None,
            timer_slack: None,
            degraded: Some("no platform backend: std::thread::sleep, resolution unknown".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_is_not_early_once_rechecked() {
        for micros in [0, 1, 100, 1_500] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            loop {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                Os::wait_until(deadline, now);
            }
        }
        assert_eq!(Os::timer_info().mechanism, "std::thread::sleep");
    }
}
