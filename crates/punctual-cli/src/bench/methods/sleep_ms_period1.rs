use super::os_wait::TimeLeftWait;
use super::timeout::whole_ms_u32;
use crate::bench::clock::RealClock;
use crate::bench::method::{MethodSpec, Oses, SyncSpec};
use crate::sys::waits::windows::{sleep_ms, TimerPeriod};

pub const SPEC: MethodSpec = MethodSpec {
    name: "sleep-ms-period1",
    about: "sleep-ms with timeBeginPeriod(1) held for the whole run",
    ours: false,
    runs_on: Oses::WINDOWS,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::NONE,
    sync: Some(SyncSpec {
        create: || {
            let period = TimerPeriod::begin(1)?;
            Ok(Box::new(
                TimeLeftWait::new(
                    "sleep-ms-period1",
                    Box::new(RealClock),
                    whole_ms_u32,
                    move |ms| {
                        let _held = &period;
                        sleep_ms(ms);
                        Ok(())
                    },
                )
                .with_setting("timeBeginPeriod(1) held".into()),
            ))
        },
        // A 1 ms tick with timeBeginPeriod(1).
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use super::SPEC;

    /// Only the period differs from `sleep-ms` (whose file tests the rounding); where it
    /// cannot be held, the method is refused at its creation, not run without it.
    #[test]
    fn holds_the_period_or_refuses_to_run() {
        match (SPEC.sync().unwrap().create)() {
            Ok(method) => assert_eq!(
                method.note().as_deref(),
                Some("sleep-ms-period1: timeBeginPeriod(1) held")
            ),
            Err(e) => assert!(!SPEC.runs_here(), "refused on Windows: {e}"),
        }
    }
}
