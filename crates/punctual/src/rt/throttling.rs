use super::{current_scheduling, Policy};
use crate::sys::{self, RealTime};

/// Linux real-time throttling: real-time threads may run `runtime_us` out of every
/// `period_us` microseconds, then wait for the next period while time-sharing threads run.
///
/// A thread that spins under `SCHED_FIFO` uses up that budget, and when it runs out the
/// thread is stalled for the rest of the period: tens of milliseconds of lateness, worse than
/// any sleep. See [`spin_warning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RtThrottling {
    /// `/proc/sys/kernel/sched_rt_runtime_us`; -1 turns throttling off.
    pub runtime_us: i64,
    /// `/proc/sys/kernel/sched_rt_period_us`.
    pub period_us: i64,
}

impl RtThrottling {
    /// Whether real-time threads can be throttled: a runtime of -1, or one that fills the
    /// whole period, never throttles.
    ///
    /// # Examples
    ///
    /// ```
    /// use punctual::rt::RtThrottling;
    ///
    /// assert!(RtThrottling { runtime_us: 950_000, period_us: 1_000_000 }.is_on());
    /// assert!(!RtThrottling { runtime_us: -1, period_us: 1_000_000 }.is_on());
    /// ```
    pub fn is_on(&self) -> bool {
        self.runtime_us >= 0 && self.runtime_us < self.period_us
    }
}

/// The system's real-time throttling settings, or `None` where there are none (off Linux) or
/// they cannot be read.
///
/// # Implementation notes
///
/// Linux: reads `/proc/sys/kernel/sched_rt_runtime_us` and `sched_rt_period_us`
/// (`sched(7)`, "Limiting the CPU usage of real-time and deadline processes").
pub fn rt_throttling() -> Option<RtThrottling> {
    <sys::Os as RealTime>::rt_throttling()
}

/// A warning when a spin tail on this thread could be stalled by real-time throttling:
/// the thread runs under `SCHED_FIFO` or `SCHED_RR` and [`rt_throttling`] is on. `None`
/// otherwise.
///
/// A hybrid or spin [`Sleeper`](crate::Sleeper) spins at the end of every wait. Under a
/// real-time policy that spin can exhaust the real-time runtime, and the kernel then stalls
/// the thread until the next period. The warning is meant to be shown to whoever chose the
/// settings; the library does not change anything.
///
/// # Examples
///
/// ```
/// // A time-sharing thread is never throttled, so there is nothing to warn about.
/// std::thread::spawn(|| {
///     if !punctual::rt::current_scheduling().is_ok_and(|s| s.policy.is_realtime()) {
///         assert_eq!(punctual::rt::spin_warning(), None);
///     }
/// })
/// .join()
/// .unwrap();
/// ```
pub fn spin_warning() -> Option<String> {
    let scheduling = current_scheduling().ok()?;
    if !matches!(scheduling.policy, Policy::Fifo | Policy::RoundRobin) {
        return None;
    }
    let throttling = rt_throttling().filter(RtThrottling::is_on)?;
    Some(format!(
        "spinning under {scheduling} with real-time throttling on (sched_rt_runtime_us = {} of \
         every {} us): a spin that uses up the real-time budget stalls this thread for the rest \
         of the period, up to {} us; use the native strategy, or turn throttling off with \
         `sysctl kernel.sched_rt_runtime_us=-1` on a machine that can afford it",
        throttling.runtime_us,
        throttling.period_us,
        throttling.period_us - throttling.runtime_us,
    ))
}
