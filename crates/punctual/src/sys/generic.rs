//! Anything else: every real-time control reports `RtError::Unsupported`.
//!
//! Also compiled into the test build on every platform, so it is known to fit [`RealTime`].

use super::{NoDmaLatency, RealTime};

pub(crate) struct Os;

/// Every control as the trait's defaults have it: unsupported.
impl RealTime for Os {
    type DmaLatency = NoDmaLatency;
    const PLATFORM: &'static str = "this platform (no punctual backend)";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use crate::rt::RtError;

    #[test]
    fn fallback_reports_every_control_unsupported() {
        let unsupported = |r: Result<(), RtError>| matches!(r, Err(RtError::Unsupported { .. }));
        assert!(unsupported(Os::set_realtime_priority(10).map(drop)));
        assert!(unsupported(Os::current_scheduling().map(drop)));
        assert!(unsupported(Os::hold_dma_latency(0).map(drop)));
        assert!(unsupported(Os::lock_memory()));
        assert!(unsupported(Os::set_affinity(&[0])));
        assert!(unsupported(Os::timer_slack().map(drop)));
        assert!(unsupported(Os::set_timer_slack(Duration::ZERO)));
        assert!(unsupported(Os::scheduling_of(1).map(drop)));
        assert!(unsupported(Os::set_normal_scheduling().map(drop)));
        assert!(unsupported(Os::unlock_memory()));
        assert!(unsupported(Os::available_cpus().map(drop)));
        assert!(unsupported(Os::keep_timer_resolution()));
        assert_eq!(Os::priority_range(), crate::sys::PORTABLE_PRIORITIES);
        assert_eq!(Os::rt_throttling(), None);
        let message = Os::lock_memory().unwrap_err().to_string();
        assert_eq!(
            message,
            "locking all memory (mlockall) is not available on this platform (no punctual backend)"
        );
    }
}
