use std::time::Duration;

use super::os_wait::TimeLeftWait;
use crate::bench::clock::RealClock;
use crate::bench::method::{Measured, MethodSpec, Oses, SyncSpec};
use crate::sys::waits::{self, TargetOs, THIS_OS};
use crate::units::format_duration;

/// Relative `nanosleep` for the time left, as most programs sleep: on Linux at the thread's
/// default timer slack (punctual's native sleep cuts its own thread's to 1 ns; this one puts
/// it back), on Windows the mingw C runtime's.
fn create() -> anyhow::Result<Box<dyn Measured>> {
    let method = |sleep: fn(Duration) -> std::io::Result<()>| {
        TimeLeftWait::new("nanosleep", Box::new(RealClock), |left| left, sleep)
    };
    Ok(match THIS_OS {
        TargetOs::Linux => {
            let slack = waits::linux::default_timer_slack()?;
            Box::new(
                method(waits::linux::nanosleep)
                    .with_setting(format!("timer slack {}", format_duration(slack))),
            )
        }
        TargetOs::Macos => Box::new(method(waits::macos::nanosleep)),
        TargetOs::Windows => Box::new(method(waits::windows::mingw_nanosleep)),
        TargetOs::Other => anyhow::bail!("nanosleep: not on this OS"),
    })
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "nanosleep",
    about: "relative nanosleep for the time left, at the default timer slack (Windows: mingw's)",
    ours: false,
    runs_on: Oses::NAMED,
    os_primitive_on: Oses::NAMED,
    never_early_on: Oses::UNIX,
    sync: Some(SyncSpec { create }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use super::super::os_wait::tests::never_early_on_the_mock;

    #[test]
    fn asks_for_exactly_the_time_left() {
        let calls = never_early_on_the_mock(|left| left, |left| left);
        assert_eq!(calls.len(), 2_000);
    }
}
