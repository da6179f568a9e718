//! How each method's stand-in behaves under `--mock-timer`, by the method's name: [`SYNC`]
//! for the single-thread stand-ins ([`MockMethod`](super::MockMethod)), [`SCALE`] for the
//! scale mode's and the server workload's models. Tests check that every method compiled
//! in has the profiles its parts need, so a method added without one fails a test rather
//! than a mock run. The CLI snapshots are made from these numbers: changing one changes
//! them.

use super::MockProfile;
use crate::bench::methods::{
    async_io, async_mt, async_mtw, async_native, async_rt, async_spin, epoll, hybrid, hybrid_fixed,
    kqueue, nanosleep, native, poll, sched_yield, select, sleep_ms, sleep_ms_period1, spin,
    spin_sleep, std_sleep, timerfd, tokio, tokio_mt, usleep, waitable_timer,
};
use crate::bench::scale::mock::ScaleMockProfile;

/// How each single-thread method's stand-in wakes, by the method's name; a test checks that
/// every single-thread method compiled in has one.
pub const SYNC: &[(&str, MockProfile)] = &[
    (
        native::SPEC.name,
        MockProfile::new(18_000, 6_000, 250_000, 3_000, 0.0).reporting(60),
    ),
    (
        hybrid::SPEC.name,
        MockProfile::new(30, 60, 20_000, 9_000, 0.0)
            .reporting(120)
            .counting_spins(),
    ),
    (
        spin::SPEC.name,
        MockProfile::new(20, 30, 0, 0, 1.0).reporting(160),
    ),
    (
        async_native::SPEC.name,
        MockProfile::new(24_000, 6_000, 300_000, 6_500, 0.0),
    ),
    (
        async_spin::SPEC.name,
        MockProfile::new(140, 40, 20_000, 20_000, 0.045).counting_spins(),
    ),
    (
        std_sleep::SPEC.name,
        MockProfile::new(70_000, 25_000, 300_000, 3_500, 0.0),
    ),
    (
        spin_sleep::SPEC.name,
        MockProfile::new(40, 90, 0, 45_000, 0.0),
    ),
    (
        tokio::SPEC.name,
        MockProfile::new(1_050_000, 40_000, 500_000, 6_000, 0.0),
    ),
    (
        async_io::SPEC.name,
        MockProfile::new(60_000, 20_000, 300_000, 5_000, 0.0),
    ),
    (
        nanosleep::SPEC.name,
        MockProfile::new(60_000, 20_000, 300_000, 3_000, 0.0),
    ),
    (
        timerfd::SPEC.name,
        MockProfile::new(50_000, 15_000, 250_000, 3_000, 0.0),
    ),
    (
        epoll::SPEC.name,
        MockProfile::new(60_000, 1_000_000, 300_000, 3_000, 0.0),
    ),
    (
        poll::SPEC.name,
        MockProfile::new(60_000, 1_000_000, 300_000, 3_000, 0.0),
    ),
    (
        select::SPEC.name,
        MockProfile::new(60_000, 20_000, 300_000, 3_000, 0.0),
    ),
    (
        sched_yield::SPEC.name,
        MockProfile::new(300, 900, 20_000, 0, 1.0),
    ),
    (
        kqueue::SPEC.name,
        MockProfile::new(50_000, 15_000, 250_000, 3_000, 0.0),
    ),
    (
        sleep_ms::SPEC.name,
        MockProfile::new(100_000, 15_625_000, 0, 3_000, 0.0),
    ),
    (
        sleep_ms_period1::SPEC.name,
        MockProfile::new(100_000, 1_000_000, 300_000, 3_000, 0.0),
    ),
    (
        waitable_timer::SPEC.name,
        MockProfile::new(100_000, 15_625_000, 0, 3_000, 0.0),
    ),
    (
        hybrid_fixed::SPEC.name,
        MockProfile::new(20, 40, 0, 1_000_000, 0.0),
    ),
    (
        usleep::SPEC.name,
        MockProfile::new(100_000, 1_000_000, 300_000, 3_000, 0.0),
    ),
];

/// The profile of the stand-in for the single-thread part of the method named `name`.
pub fn sync(name: &str) -> Option<MockProfile> {
    SYNC.iter()
        .find(|(method, _)| *method == name)
        .map(|&(_, profile)| profile)
}

/// The scale mode's model of each method with a scale part (`--scale`, `--workload server`),
/// by the method's name.
pub const SCALE: &[(&str, ScaleMockProfile)] = &[
    (
        async_native::SPEC.name,
        ScaleMockProfile {
        base_ns: 22_000,
        pause_ns: 1_500_000,
        jitter_ns: 8_000,
        queue_ps: 900,
        tail_ns: 60_000,
        cpu_ns: 900,
        driver_cpu_ns: Some(300),
        rss_bytes: 610,
        timer_bytes: 76,
        scheduling: None,
        },
    ),
    (
        async_rt::SPEC.name,
        ScaleMockProfile {
        base_ns: 21_000,
        pause_ns: 0,
        jitter_ns: 7_000,
        queue_ps: 800,
        tail_ns: 40_000,
        cpu_ns: 900,
        driver_cpu_ns: Some(300),
        rss_bytes: 610,
        timer_bytes: 76,
        scheduling: Some("executor thread SCHED_FIFO 10 while the deadlines run, driver thread SCHED_FIFO 10 (mock)"),
        },
    ),
    (
        async_spin::SPEC.name,
        ScaleMockProfile {
        base_ns: 150,
        pause_ns: 0,
        jitter_ns: 100,
        queue_ps: 1_500,
        tail_ns: 30_000,
        cpu_ns: 5_000,
        driver_cpu_ns: Some(320),
        rss_bytes: 610,
        timer_bytes: 76,
        scheduling: None,
        },
    ),
    (
        tokio::SPEC.name,
        ScaleMockProfile {
        base_ns: 1_000_000,
        pause_ns: 0,
        jitter_ns: 60_000,
        queue_ps: 500,
        tail_ns: 900_000,
        cpu_ns: 700,
        driver_cpu_ns: None,
        rss_bytes: 580,
        timer_bytes: 112,
        scheduling: None,
        },
    ),
    (
        async_mt::SPEC.name,
        ScaleMockProfile {
        base_ns: 24_000,
        pause_ns: 1_000_000,
        jitter_ns: 9_000,
        queue_ps: 600,
        tail_ns: 70_000,
        cpu_ns: 1_100,
        driver_cpu_ns: Some(300),
        rss_bytes: 650,
        timer_bytes: 76,
        scheduling: None,
        },
    ),
    (
        async_mtw::SPEC.name,
        ScaleMockProfile {
        base_ns: 26_000,
        pause_ns: 1_000_000,
        jitter_ns: 9_000,
        queue_ps: 550,
        tail_ns: 75_000,
        cpu_ns: 1_200,
        driver_cpu_ns: Some(350),
        rss_bytes: 660,
        timer_bytes: 80,
        scheduling: None,
        },
    ),
    (
        tokio_mt::SPEC.name,
        ScaleMockProfile {
        base_ns: 1_000_000,
        pause_ns: 0,
        jitter_ns: 70_000,
        queue_ps: 350,
        tail_ns: 900_000,
        cpu_ns: 900,
        driver_cpu_ns: None,
        rss_bytes: 600,
        timer_bytes: 112,
        scheduling: None,
        },
    ),
];

/// The scale mode's model of the method named `name`.
///
/// # Errors
///
/// When the method has none: a test checks that every scale method has one.
pub fn scale(name: &str) -> anyhow::Result<ScaleMockProfile> {
    SCALE
        .iter()
        .find(|(method, _)| *method == name)
        .map(|&(_, profile)| profile)
        .ok_or_else(|| anyhow::anyhow!("`{name}` has no scale model under --mock-timer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::method::MethodSpec;
    use crate::bench::registry;

    /// Every method with the part `has` has a profile in `table`, and every entry of `table`
    /// is one such method's, once.
    fn covers<P>(table: &[(&str, P)], has: fn(&MethodSpec) -> bool, what: &str) {
        for spec in registry::METHODS.iter().filter(|spec| has(spec)) {
            assert!(
                table.iter().any(|(name, _)| *name == spec.name),
                "`{}` has no {what} profile",
                spec.name
            );
        }
        for (i, (name, _)) in table.iter().enumerate() {
            assert!(
                registry::find(name).is_some_and(has),
                "`{name}` has a {what} profile but no {what} part"
            );
            let first = table.iter().position(|(other, _)| other == name);
            assert_eq!(first, Some(i), "`{name}` has two {what} profiles");
        }
    }

    /// A method added without a stand-in fails here, not in a `--mock-timer` run.
    #[test]
    fn every_single_thread_method_has_one_stand_in() {
        covers(SYNC, |spec| spec.sync.is_some(), "single-thread");
    }

    #[test]
    fn every_scale_method_has_one_model() {
        covers(SCALE, |spec| spec.scale.is_some(), "scale");
    }
}
