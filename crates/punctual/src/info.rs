use std::fmt;
use std::time::Duration;

/// How this platform's native timer behaves for the calling thread; see [`timer_info`].
///
/// [`timer_info`]: crate::timer_info
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimerInfo {
    /// The OS call behind the native strategy, e.g. `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`.
    pub mechanism: &'static str,
    /// Whether that call can wake at a finer grain than a scheduler tick (Linux hrtimers,
    /// Windows' `CREATE_WAITABLE_TIMER_HIGH_RESOLUTION`, macOS always).
    pub high_resolution: bool,
    /// The resolution the OS reports for its monotonic clock, where it reports one.
    pub resolution: Option<Duration>,
    /// The calling thread's timer slack (Linux), after punctual set it: the slack in force,
    /// so zero under a real-time policy, where Linux ignores the thread's slack (see
    /// [`rt::timer_slack`](crate::rt::timer_slack)).
    pub timer_slack: Option<Duration>,
    /// Why the native timer is not the best one this OS family offers, when it is not.
    pub degraded: Option<String>,
}

impl fmt::Display for TimerInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.mechanism)?;
        f.write_str(if self.high_resolution {
            " (high resolution)"
        } else {
            " (low resolution)"
        })?;
        if let Some(slack) = self.timer_slack {
            write!(f, ", timer slack {} ns", slack.as_nanos())?;
        }
        if let Some(why) = &self.degraded {
            write!(f, "; degraded: {why}")?;
        }
        Ok(())
    }
}
