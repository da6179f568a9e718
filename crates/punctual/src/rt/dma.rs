use std::time::Duration;

use super::RtError;
use crate::sys::{self, RealTime};

/// Keeps every CPU out of idle states slower to leave than a given latency, for as long as it
/// lives.
///
/// Deep idle states save power but take tens to hundreds of microseconds to wake from, and
/// that exit time lands on every timer wake-up. While a guard is held the kernel's PM QoS
/// layer keeps CPUs in states that exit within `latency` (0 keeps them polling). Requests
/// from all holders combine: the smallest wins. Dropping the guard withdraws the request.
///
/// # Errors
///
/// [`RtError::PermissionDenied`] when `/dev/cpu_dma_latency` is not writable (root only by
/// default), [`RtError::Unsupported`] when the device does not exist or off Linux.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::rt::{DmaLatencyGuard, RtError};
///
/// match DmaLatencyGuard::new(Duration::from_micros(10)) {
///     Ok(guard) => assert_eq!(guard.latency(), Duration::from_micros(10)),
///     Err(RtError::PermissionDenied { fixes, .. }) => assert!(fixes.contains("/dev/cpu_dma_latency")),
///     Err(RtError::Unsupported { .. }) => {}
///     Err(e) => panic!("{e}"),
/// }
/// ```
///
/// # Implementation notes
///
/// Linux: opens `/dev/cpu_dma_latency`, writes the latency as a binary `s32` of microseconds
/// and keeps the file open (the request lasts as long as the open file; see the kernel's
/// `Documentation/power/pm_qos_interface.rst`). The file is opened close-on-exec, so child
/// processes do not inherit the request. Other platforms: unsupported.
///
/// The request lasts only as long as the guard, so a guard dropped at once is a mistake the
/// compiler warns about:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// # fn main() -> Result<(), punctual::rt::RtError> {
/// punctual::rt::DmaLatencyGuard::new(std::time::Duration::from_micros(10))?; // withdrawn here
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[must_use = "the request is withdrawn when the guard is dropped: keep it while it should hold"]
pub struct DmaLatencyGuard {
    _request: sys::DmaLatency,
    latency: Duration,
}

impl DmaLatencyGuard {
    /// Requests at most `latency` of idle-exit time until the guard is dropped.
    ///
    /// The latency is rounded down to whole microseconds (a tighter bound, never a looser
    /// one) and capped at `i32::MAX` microseconds (about 36 minutes, which no idle state
    /// approaches); [`latency`](DmaLatencyGuard::latency) reports the value requested.
    pub fn new(latency: Duration) -> Result<DmaLatencyGuard, RtError> {
        let latency_us = i32::try_from(latency.as_micros()).unwrap_or(i32::MAX);
        let request = <sys::Os as RealTime>::hold_dma_latency(latency_us)?;
        Ok(DmaLatencyGuard {
            _request: request,
            latency: Duration::from_micros(latency_us.unsigned_abs().into()),
        })
    }

    /// The latency this guard requests.
    pub fn latency(&self) -> Duration {
        self.latency
    }
}
