//! Warnings about what a run's figures can mean: too short to meet rare delays, or on a
//! machine with nothing else to do.

use std::time::Duration;

use crate::units::format_duration;

/// Below either, the rare delays a latency test is for (a long interrupt, a page fault, a
/// hypervisor stall) are unlikely to have happened even once.
pub const MIN_LOOPS: u64 = 10_000;
pub const MIN_RUN: Duration = Duration::from_secs(10);

/// Under this share of the machine's CPU time for everything else, the run measured an idle
/// machine.
pub const MIN_OTHER_LOAD: f64 = 0.10;

/// `loops` is the fewest wake-ups any thread measured; `wall` how long the run took.
pub fn too_short(loops: u64, wall: Duration) -> Option<String> {
    (loops < MIN_LOOPS || wall < MIN_RUN).then(|| {
        format!(
            "a short run ({loops} wake-ups per thread in {}): rare long delays seldom show in \
             it. Measure at least {MIN_LOOPS} wake-ups over {} s, and hours before trusting a \
             worst case",
            format_duration(wall),
            MIN_RUN.as_secs()
        )
    })
}

/// `share` is what [`super::contention::other_load`] found.
pub fn unloaded(share: Option<f64>) -> Option<String> {
    match share {
        Some(share) if share < MIN_OTHER_LOAD => Some(format!(
            "the machine was nearly idle: other processes used {:.0}% of its CPU time during \
             the run, and latency on an idle machine says little about latency under load. Run \
             a load beside it, e.g. `stress-ng --cpu 0 --io 1` or `hackbench -l 100000`",
            share * 100.0
        )),
        Some(_) => None,
        None => Some(
            "this OS does not tell how busy the machine was; latency on an idle machine says \
             little about latency under load"
                .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_or_idle_runs_are_flagged_and_long_loaded_ones_are_not() {
        let ten_s = Duration::from_secs(10);
        assert!(too_short(9_999, ten_s).unwrap().contains("9999 wake-ups"));
        assert!(too_short(20_000, Duration::from_secs(9)).is_some());
        assert_eq!(too_short(10_000, ten_s), None);
        assert!(unloaded(Some(0.02)).unwrap().contains("2%"));
        assert_eq!(unloaded(Some(0.5)), None);
        assert!(unloaded(None).is_some());
    }
}
