//! Anything else: every real-time control reports `RtError::Unsupported`.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`RealTime`].

use std::ops::RangeInclusive;
use std::time::Duration;

use super::{NoDmaLatency, RealTime, PORTABLE_PRIORITIES};
use crate::rt::{RtError, RtThrottling, Scheduling};

pub(crate) struct Os;

fn unsupported<T>(what: &'static str) -> Result<T, RtError> {
    Err(RtError::Unsupported {
        what,
        platform: "this platform (no punctual backend)",
    })
}

impl RealTime for Os {
    type DmaLatency = NoDmaLatency;

    fn timer_slack() -> Result<Duration, RtError> {
        unsupported("timer slack")
    }

    fn set_timer_slack(_: Duration) -> Result<(), RtError> {
        unsupported("timer slack")
    }

    fn current_scheduling() -> Result<Scheduling, RtError> {
        unsupported("reading the scheduling policy")
    }

    fn scheduling_of(_: u32) -> Result<Scheduling, RtError> {
        unsupported("reading another process's scheduling policy")
    }

    fn priority_range() -> RangeInclusive<i32> {
        PORTABLE_PRIORITIES
    }

    fn set_realtime_priority(_: i32) -> Result<Scheduling, RtError> {
        unsupported("real-time priority")
    }

    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        unsupported("setting the scheduling policy")
    }

    fn hold_dma_latency(_: i32) -> Result<NoDmaLatency, RtError> {
        unsupported("a CPU wake-up latency request")
    }

    fn lock_memory() -> Result<(), RtError> {
        unsupported("locking memory")
    }

    fn unlock_memory() -> Result<(), RtError> {
        unsupported("locking memory")
    }

    fn set_affinity(_: &[usize]) -> Result<(), RtError> {
        unsupported("CPU affinity")
    }

    fn available_cpus() -> Result<Vec<usize>, RtError> {
        unsupported("CPU affinity")
    }

    fn keep_timer_resolution() -> Result<(), RtError> {
        unsupported("opting out of timer-resolution power throttling")
    }

    fn rt_throttling() -> Option<RtThrottling> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_reports_every_control_unsupported() {
        let unsupported = |r: Result<(), RtError>| matches!(r, Err(RtError::Unsupported { .. }));
        assert!(unsupported(Os::set_realtime_priority(10).map(drop)));
        assert!(unsupported(Os::current_scheduling().map(drop)));
        assert!(unsupported(Os::hold_dma_latency(0).map(drop)));
        assert!(unsupported(Os::lock_memory()));
        assert!(unsupported(Os::set_affinity(&[0])));
        assert!(unsupported(Os::timer_slack().map(drop)));
        assert_eq!(Os::rt_throttling(), None);
        let message = Os::lock_memory().unwrap_err().to_string();
        assert_eq!(
            message,
            "locking memory is not available on this platform (no punctual backend)"
        );
    }
}
