//! The hybrid sleeper's short waits, with real sleeps: what it spins whole, that a whole spin
//! teaches it nothing, the probe that lets a thread of short waits learn, and the CPU cost it
//! reads around native parts. Only counts are asserted, never lateness.

use std::time::{Duration, Instant};

use punctual::{HybridConfig, Sleeper};

const US: Duration = Duration::from_micros(1);

/// Back-off off: a spin that lost the CPU to the other builds must not turn a wait native.
fn cold(initial_margin: Duration) -> Sleeper {
    let config = HybridConfig::new()
        .with_initial_margin(initial_margin)
        .with_back_off(false);
    Sleeper::hybrid_with(config).unwrap()
}

#[test]
fn a_cold_sleeper_spins_a_microsecond_whole_and_learns_nothing_from_it() {
    // The default initial margin, at least 100 us on every platform.
    let mut sleeper = Sleeper::hybrid_with(HybridConfig::new().with_back_off(false)).unwrap();
    for _ in 0..40 {
        let wake = sleeper.sleep(US);
        assert!(wake.woke() >= wake.deadline());
    }
    let stats = sleeper.stats();
    // A wait whose deadline passed before it began (a preemption) is not counted.
    assert!(stats.sleeps > 0);
    assert_eq!(stats.spun_whole, stats.sleeps, "{stats:?}");
    assert_eq!(stats.spun, stats.sleeps, "{stats:?}");
    assert_eq!(
        sleeper.estimator().samples(),
        0,
        "a whole spin is no native sleep: shorter than a quarter of the initial margin, no \
         wait is a probe either"
    );
}

#[test]
fn a_cold_sleeper_whose_waits_are_all_short_probes_one_in_16_to_learn() {
    // 800 us: under the initial margin, so spun whole before anything is measured, but over
    // the budget's quarter of it, so one in 16 probes.
    let mut sleeper = cold(Duration::from_millis(1));
    let wait = US * 800;
    let (mut counted, mut probe) = (0, None);
    while counted < 16 {
        let before = sleeper.stats();
        let deadline = Instant::now() + wait;
        assert!(sleeper.sleep_until(deadline).woke() >= deadline);
        let after = sleeper.stats();
        if after.sleeps == before.sleeps {
            continue;
        }
        counted += 1;
        if after.spun_whole == before.spun_whole {
            probe.get_or_insert(counted);
        }
    }
    assert_eq!(probe, Some(16), "{:?}", sleeper.stats());
    // The probe's oversleep is learned before its spin, or when the next wait starts.
    sleeper.sleep(wait);
    assert!(sleeper.estimator().samples() >= 1);
}

#[test]
fn the_cpu_cost_of_native_parts_is_read_but_for_the_first() {
    let mut sleeper = cold(US * 100);
    sleeper.sleep(Duration::from_millis(2));
    assert_eq!(
        sleeper.estimator().native_cost(),
        None,
        "the first native part pays the thread's timer set-up: not read"
    );
    if punctual_sys::thread_cpu_time().is_none() {
        return;
    }
    // Even when the first native part stalled past the whole wait (the other builds), as
    // it did here once and left every later wait spun whole, with nothing more learned.
    for _ in 0..20 {
        sleeper.sleep(Duration::from_millis(2));
    }
    assert!(
        sleeper.estimator().native_cost().is_some(),
        "a reading needs only 2 us left at the wake, or a late wake"
    );
}
