//! The hybrid margin on synthetic oversleep series: outliers, step changes, the CPU cap and
//! the dependence on sleep length.

use std::time::Duration;

use punctual::margin::{MarginEstimator, Plan};
use punctual::{Error, HybridConfig};

const US: Duration = Duration::from_micros(1);
const WAIT: Duration = Duration::from_millis(1);
const NATIVE: Duration = Duration::from_micros(950);

fn estimator() -> MarginEstimator {
    MarginEstimator::new(HybridConfig::new()).unwrap()
}

/// Aimed at the bare quantile, to study the window on its own.
fn bare() -> MarginEstimator {
    MarginEstimator::new(HybridConfig::new().with_headroom(0.0)).unwrap()
}

/// The bare quantile of a short window (100 samples, the default before the long window):
/// no level-shift check, so every sample leaves after exactly 100 more.
fn bare_short() -> MarginEstimator {
    MarginEstimator::new(HybridConfig::new().with_headroom(0.0).with_window(100)).unwrap()
}

/// A reproducible uniform noise in `[base, base + width)` microseconds (xorshift64).
struct Noise(u64);

impl Noise {
    fn next(&mut self, base_us: u64, width_us: u64) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_nanos(base_us * 1_000 + self.0 % (width_us * 1_000))
    }
}

fn feed(est: &mut MarginEstimator, native: Duration, oversleep: Duration, times: usize) {
    for _ in 0..times {
        est.record(native, oversleep);
    }
}

#[test]
fn before_any_sample_the_initial_margin_is_used() {
    let est = MarginEstimator::new(HybridConfig::new().with_initial_margin(US * 77)).unwrap();
    assert_eq!(est.plan(WAIT), Plan::Hybrid { margin: US * 77 });
    assert_eq!(est.samples(), 0);
}

#[test]
fn the_margin_covers_the_tail_of_recent_oversleeps() {
    let mut est = bare();
    // 1..=100 us, one each: covering 99% means the 99th smallest.
    for us in 1..=100u32 {
        est.record(NATIVE, US * us);
    }
    assert_eq!(est.plan(WAIT), Plan::Hybrid { margin: US * 99 });
    let median = MarginEstimator::new(HybridConfig::new().with_tail(0.5).with_headroom(0.0)).map(
        |mut est| {
            for us in 1..=100u32 {
                est.record(NATIVE, US * us);
            }
            est.plan(WAIT).margin()
        },
    );
    assert_eq!(median, Ok(US * 50));
}

#[test]
fn headroom_adds_spreads_from_the_median_to_the_tail() {
    let mut est = MarginEstimator::new(HybridConfig::new().with_headroom(1.0)).unwrap();
    for us in 1..=100u32 {
        est.record(NATIVE, US * us);
    }
    // q99 = 99 us, median 50 us: one spread of headroom is 49 us more.
    assert_eq!(est.plan(WAIT).margin(), US * 148);
    let mut steady = estimator();
    feed(&mut steady, NATIVE, US * 25, 100);
    assert_eq!(
        steady.plan(WAIT).margin(),
        US * 25,
        "no jitter, no headroom"
    );
}

#[test]
fn one_outlier_does_not_move_the_margin() {
    let mut est = estimator();
    feed(&mut est, NATIVE, US * 30, 150);
    est.record(NATIVE, Duration::from_millis(3));
    assert_eq!(est.plan(WAIT).margin(), US * 30);
    // Also early on, before the window is full.
    let mut young = estimator();
    feed(&mut young, NATIVE, US * 30, 10);
    young.record(NATIVE, Duration::from_millis(3));
    assert_eq!(young.plan(WAIT).margin(), US * 30);
}

#[test]
fn a_second_outlier_is_a_real_tail_and_ages_out_within_the_window() {
    let mut est = bare_short();
    feed(&mut est, NATIVE, US * 30, 150);
    est.record(NATIVE, Duration::from_millis(3));
    est.record(NATIVE, Duration::from_millis(3));
    assert_eq!(
        est.plan(Duration::from_millis(20)).margin(),
        Duration::from_millis(3)
    );
    feed(&mut est, NATIVE, US * 30, 99);
    assert_eq!(
        est.plan(WAIT).margin(),
        US * 30,
        "gone after a window of sleeps"
    );
}

#[test]
fn a_step_change_is_followed_within_about_a_hundred_sleeps() {
    let mut est = bare_short();
    feed(&mut est, NATIVE, US * 20, 200);
    // Step up: the second slow sample already moves the tail.
    est.record(NATIVE, US * 80);
    assert_eq!(est.plan(WAIT).margin(), US * 20);
    est.record(NATIVE, US * 80);
    assert_eq!(est.plan(WAIT).margin(), US * 80);
    feed(&mut est, NATIVE, US * 80, 198);
    // Step down: the old tail leaves as the window turns over.
    feed(&mut est, NATIVE, US * 20, 98);
    assert_eq!(
        est.plan(WAIT).margin(),
        US * 80,
        "still two slow samples in the window"
    );
    est.record(NATIVE, US * 20);
    assert_eq!(
        est.plan(WAIT).margin(),
        US * 20,
        "followed within 99 sleeps"
    );
}

#[test]
fn stationary_noise_gives_a_steady_margin_near_the_true_quantile() {
    // Oversleep uniform over 20 to 40 us: the true 99% quantile is 39.8 us, the median 30.
    let mut est = estimator();
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    for _ in 0..1_000 {
        est.record(NATIVE, noise.next(20, 20));
    }
    let (mut lowest, mut highest) = (Duration::MAX, Duration::ZERO);
    for _ in 0..10_000 {
        est.record(NATIVE, noise.next(20, 20));
        let margin = est.plan(WAIT).margin();
        lowest = lowest.min(margin);
        highest = highest.max(margin);
    }
    // The band: from the 98.5% quantile (39.7 us) to the 99.7% quantile plus the long
    // window's headroom, 0.15 of the 10 us spread (40.94 + 1.5 us).
    assert!(lowest >= US * 39_700 / 1_000, "fell to {lowest:?}");
    assert!(highest <= US * 42_440 / 1_000, "rose to {highest:?}");
    assert!(
        highest - lowest <= US,
        "steady: {lowest:?} to {highest:?} over 10,000 sleeps"
    );
    assert_eq!(est.level_shifts(), 0, "noise is not a change of level");
}

#[test]
fn the_default_window_follows_a_step_up_and_down_within_a_hundred_sleeps() {
    let mut est = estimator();
    let mut noise = Noise(0x2545_F491_4F6C_DD1D);
    for _ in 0..1_000 {
        est.record(NATIVE, noise.next(20, 4));
    }
    assert!(est.plan(WAIT).margin() < US * 25);
    let up = (1..=100)
        .find(|_| {
            est.record(NATIVE, noise.next(80, 4));
            est.plan(WAIT).margin() >= US * 80
        })
        .expect("a step up is covered within 100 sleeps");
    assert!(up <= 15, "the tail moved after {up} sleeps");
    for _ in 0..1_000 {
        est.record(NATIVE, noise.next(80, 4));
    }
    let down = (1..=100)
        .find(|_| {
            est.record(NATIVE, noise.next(20, 4));
            est.plan(WAIT).margin() < US * 30
        })
        .expect("a step down is followed within 100 sleeps");
    assert!(down > 20, "not before the new level is clear: {down}");
    assert!(est.level_shifts() >= 1);
}

#[test]
fn stalls_under_one_percent_of_a_long_window_barely_move_the_margin() {
    let mut est = estimator();
    let mut noise = Noise(7);
    for _ in 0..1_000 {
        est.record(NATIVE, noise.next(20, 4));
    }
    let before = est.plan(WAIT).margin();
    est.record(NATIVE, US * 200);
    let after = est.plan(WAIT).margin();
    // The stall only moves the quantile up by one rank among the noise.
    assert!(
        after < before + US / 10,
        "a stall within the budget: {before:?} then {after:?}"
    );
    for _ in 0..8 {
        est.record(NATIVE, Duration::from_millis(3));
    }
    assert!(
        est.plan(WAIT).margin() < US * 30,
        "nine stalls in 1,000 sleeps are under 1% of them"
    );
}

#[test]
fn the_cpu_budget_caps_the_spin() {
    // Oversleeps of 20 to 420 us: the tail target is past a quarter of 1 ms.
    let mut est = estimator();
    let mut noise = Noise(11);
    let samples: Vec<Duration> = (0..1_000).map(|_| noise.next(20, 400)).collect();
    for &oversleep in &samples {
        est.record(NATIVE, oversleep);
    }
    let plan = est.plan(WAIT);
    assert!(matches!(plan, Plan::Capped { .. }), "{plan:?}");
    assert!(plan.wanted() > WAIT / 4, "{plan:?}");
    // The margin passes the budget by no more than the oversleeps' floor, so that the wait
    // spins past the budget only on a native part that wakes sooner than 99 in 100 did.
    let mut sorted = samples.clone();
    sorted.sort_unstable();
    let floor = sorted[(sorted.len() - 1) / 100];
    assert!(
        plan.margin() <= WAIT / 4 + floor,
        "{plan:?}, floor {floor:?}"
    );
    let over = samples
        .iter()
        .filter(|&&x| plan.margin().saturating_sub(x) > WAIT / 4)
        .count();
    assert!(
        over <= samples.len() / 100,
        "{over} of the window would spin past the budget"
    );

    let mut none = MarginEstimator::new(HybridConfig::new().with_budget(0.0)).unwrap();
    feed(&mut none, NATIVE, US, 100);
    assert_eq!(none.plan(WAIT), Plan::Native { wanted: US });
    let mut all = MarginEstimator::new(HybridConfig::new().with_budget(1.0)).unwrap();
    feed(&mut all, Duration::from_micros(5), US * 9, 100);
    assert_eq!(all.plan(US * 10), Plan::Hybrid { margin: US * 9 });
}

#[test]
fn a_margin_past_the_budget_that_every_native_part_overshoots_spins_nothing() {
    // Every native part oversleeps 300 us, more than a quarter of 1 ms. A 300 us margin
    // spins none of it. The floor that lets the margin pass the budget is the window's least
    // sample once it is trusted, at 8 samples (it waited for 100 once).
    let config = HybridConfig::new().with_initial_margin(US * 100);
    let mut est = MarginEstimator::new(config).unwrap();
    est.record(NATIVE, US * 300);
    assert_eq!(
        est.plan(WAIT),
        Plan::Capped {
            margin: WAIT / 4,
            wanted: US * 400
        },
        "one sample, no neighbour: it may be a stall, so no floor yet; no oversleep fits \
         in the budget, and the native part ends the whole budget early"
    );
    feed(&mut est, NATIVE, US * 300, 7);
    assert_eq!(
        est.plan(WAIT),
        Plan::Hybrid { margin: US * 300 },
        "eight samples speak for themselves: the tail fits in the budget and its floor"
    );
    feed(&mut est, Duration::from_millis(2), US * 300, 100);
    assert_eq!(
        est.plan(Duration::from_millis(2)),
        Plan::Hybrid { margin: US * 300 }
    );
}

#[test]
fn stalls_past_the_budget_do_not_make_every_wait_spin_the_budget() {
    let mut est = estimator();
    // 3% of sleeps stall for 1.4 ms: the 99% tail is a stall, which no budget covers.
    for i in 0..100 {
        let oversleep = if i % 33 == 0 { US * 1_400 } else { US * 27 };
        est.record(NATIVE, oversleep);
    }
    let plan = est.plan(WAIT);
    assert!(
        plan.wanted() > US * 250,
        "the tail target is the stall: {plan:?}"
    );
    assert_eq!(
        plan,
        Plan::Capped {
            margin: US * 27,
            wanted: plan.wanted()
        },
        "covers what fits"
    );
    assert!(plan.margin() <= WAIT / 4);
}

#[test]
fn with_nothing_measured_a_short_wait_spins_at_most_its_budget() {
    let est = MarginEstimator::new(HybridConfig::new().with_initial_margin(US * 100)).unwrap();
    let wait = US * 100;
    assert_eq!(
        est.plan(wait),
        Plan::Capped {
            margin: US * 25,
            wanted: US * 100
        }
    );
}

#[test]
fn margins_are_learned_per_sleep_length() {
    let mut est = estimator();
    feed(&mut est, Duration::from_micros(80), US * 15, 100);
    feed(&mut est, Duration::from_millis(2), US * 40, 100);
    feed(&mut est, Duration::from_millis(9), US * 50, 100);
    assert_eq!(est.plan(Duration::from_micros(100)).wanted(), US * 15);
    assert_eq!(est.plan(Duration::from_millis(2)).wanted(), US * 40);
    assert_eq!(est.plan(Duration::from_millis(10)).wanted(), US * 50);
    // A length with no samples of its own borrows from the nearest that has them, the
    // longer one when two are as near.
    assert_eq!(est.plan(Duration::from_micros(500)).wanted(), US * 40);
    assert_eq!(est.plan(Duration::from_micros(10)).wanted(), US * 15);
    assert_eq!(est.plan(Duration::from_secs(1)).wanted(), US * 50);
}

#[test]
fn oversleep_past_u32_nanos_saturates() {
    let mut est = MarginEstimator::new(HybridConfig::new().with_budget(1.0)).unwrap();
    feed(
        &mut est,
        Duration::from_secs(100),
        Duration::from_secs(10),
        100,
    );
    assert_eq!(
        est.plan(Duration::from_secs(100)).margin(),
        Duration::from_nanos(u64::from(u32::MAX))
    );
}

#[test]
fn bad_configurations_are_refused_with_a_clear_error() {
    let cases = [
        (HybridConfig::new().with_tail(0.0), Error::InvalidTail(0.0)),
        (HybridConfig::new().with_tail(1.5), Error::InvalidTail(1.5)),
        (
            HybridConfig::new().with_headroom(-1.0),
            Error::InvalidHeadroom(-1.0),
        ),
        (
            HybridConfig::new().with_headroom(f64::INFINITY),
            Error::InvalidHeadroom(f64::INFINITY),
        ),
        (HybridConfig::new().with_window(0), Error::InvalidWindow(0)),
        (
            HybridConfig::new().with_window(1 << 20),
            Error::InvalidWindow(1 << 20),
        ),
        (
            HybridConfig::new().with_budget(-0.1),
            Error::InvalidBudget(-0.1),
        ),
        (
            HybridConfig::new().with_budget(2.0),
            Error::InvalidBudget(2.0),
        ),
    ];
    for (config, error) in cases {
        assert_eq!(MarginEstimator::new(config).unwrap_err(), error);
        assert_eq!(punctual::Sleeper::hybrid_with(config).unwrap_err(), error);
    }
    assert!(matches!(
        HybridConfig::new().with_tail(f64::NAN).validate(),
        Err(Error::InvalidTail(_))
    ));
    assert_eq!(
        Error::InvalidBudget(2.0).to_string(),
        "the spin budget must be a fraction in [0, 1], e.g. 0.25; got 2"
    );
}

#[test]
fn a_tail_longer_than_the_wait_still_reads_the_window_of_the_wait_s_own_length() {
    let mut est = estimator();
    // Short sleeps oversleep little; sleeps near 1 ms oversleep more and sometimes stall.
    feed(&mut est, Duration::from_micros(75), US * 20, 100);
    for i in 0..100 {
        let oversleep = if i % 10 == 0 { US * 2_000 } else { US * 120 };
        est.record(Duration::from_micros(900), oversleep);
    }
    // The tail target (a stall) exceeds the wait itself; the native part is still at least
    // three quarters of the wait, so the margin must come from the 1 ms bucket, not the
    // short sleeps' bucket.
    let plan = est.plan(WAIT);
    assert_eq!(
        plan,
        Plan::Capped {
            margin: US * 120,
            wanted: plan.wanted()
        }
    );
}

/// Oversleeps of 20 to 40 us for native sleeps of 60 us, each costing the thread 35 us of
/// CPU: the floor is 20 us, the short-wait threshold 55 us.
fn measured_short_sleeps() -> MarginEstimator {
    let mut est = estimator();
    let mut noise = Noise(3);
    for _ in 0..200 {
        est.record(US * 60, noise.next(20, 20));
        est.record_cost(US * 35);
    }
    est
}

#[test]
fn a_wait_shorter_than_the_native_floor_plus_its_cost_is_spun_whole() {
    let est = measured_short_sleeps();
    let threshold = est.short_threshold(US * 40);
    // The floor is the 1st percentile of 200 samples, just over 20 us.
    assert!(
        threshold >= US * 55 && threshold < US * 56,
        "floor + cost: {threshold:?}"
    );
    assert_eq!(est.native_cost(), Some(US * 35));
    for wait in [Duration::from_nanos(1), US, US * 10, threshold - US / 1000] {
        let plan = est.plan(wait);
        assert!(
            matches!(plan, Plan::Spin { margin, .. } if margin == wait),
            "{wait:?}: {plan:?}"
        );
        assert_eq!(est.short_threshold(wait), threshold, "one floor, nearest");
    }
    // At the threshold and past it, the budget rule: the spin is the margin less the
    // oversleep, at most the budget plus the floor.
    for wait in [threshold, US * 100, WAIT] {
        let plan = est.plan(wait);
        assert!(!matches!(plan, Plan::Spin { .. }), "{wait:?}: {plan:?}");
        assert!(plan.margin() < wait, "{wait:?}: {plan:?}");
        assert!(plan.margin() <= wait / 4 + US * 21, "{wait:?}: {plan:?}");
    }
}

#[test]
fn without_a_cost_the_short_wait_threshold_is_the_floor() {
    let mut est = estimator();
    feed(&mut est, US * 60, US * 20, 100);
    assert_eq!(est.native_cost(), None);
    assert_eq!(est.short_threshold(US * 10), US * 20);
    assert!(matches!(est.plan(US * 19), Plan::Spin { .. }));
    assert!(!matches!(est.plan(US * 20), Plan::Spin { .. }));
}

#[test]
fn the_cost_in_the_threshold_passes_over_stray_readings() {
    let mut est = measured_short_sleeps();
    let threshold = est.short_threshold(US * 40);
    // A clock that counts whole ticks reads a tick now and then.
    est.record_cost(Duration::from_micros(15_625));
    est.record_cost(Duration::from_micros(15_625));
    assert_eq!(est.short_threshold(US * 40), threshold);
    // And most of the time zero: the threshold falls to the floor.
    for _ in 0..16 {
        est.record_cost(Duration::ZERO);
    }
    assert_eq!(est.short_threshold(US * 40), threshold - US * 35);
}

#[test]
fn before_anything_is_measured_waits_under_the_initial_margin_are_spun_whole() {
    let est = MarginEstimator::new(HybridConfig::new().with_initial_margin(US * 100)).unwrap();
    assert_eq!(est.short_threshold(US), US * 100);
    for wait in [US, US * 50, US * 99] {
        assert_eq!(
            est.plan(wait),
            Plan::Spin {
                margin: wait,
                wanted: US * 100
            }
        );
    }
    assert!(!matches!(est.plan(US * 100), Plan::Spin { .. }));
    let none =
        MarginEstimator::new(HybridConfig::new().with_initial_margin(Duration::ZERO)).unwrap();
    assert!(
        !matches!(none.plan(US), Plan::Spin { .. }),
        "an initial margin of zero assumes native sleeps wake on time"
    );
}

#[test]
fn a_budget_of_zero_spins_no_wait_however_short() {
    let mut est = MarginEstimator::new(HybridConfig::new().with_budget(0.0)).unwrap();
    assert_eq!(
        est.plan(US),
        Plan::Native {
            wanted: est.config().initial_margin()
        }
    );
    feed(&mut est, US * 60, US * 20, 100);
    assert_eq!(est.plan(US), Plan::Native { wanted: US * 20 });
}

/// Native sleeps of 2 ms oversleeping 40 to 59 us, five of each microsecond: floor 40 us,
/// tail 59 us, median 49 us, so a margin of 59 + 1.5 * 10 = 74 us, reaching 34 us above the
/// floor.
fn neighbour(est: &mut MarginEstimator) {
    for us in 40..60u32 {
        feed(est, Duration::from_millis(2), US * us, 5);
    }
}

#[test]
fn a_fresh_estimator_with_a_neighbouring_window_plans_a_covering_margin_for_a_new_length() {
    let mut est = estimator();
    neighbour(&mut est);
    assert_eq!(est.plan(Duration::from_millis(2)).margin(), US * 74);
    // Longer and shorter lengths of their own have no sample yet: they borrow the
    // neighbour's margin, which covers 99% of its oversleeps and its headroom, whole.
    for wait in [Duration::from_millis(10), Duration::from_micros(300)] {
        assert_eq!(est.plan(wait), Plan::Hybrid { margin: US * 74 }, "{wait:?}");
    }
    // At 100 us the budget is 25 us, under every oversleep: the neighbour's floor lets the
    // margin pass it by 40 us (it waited for 100 samples of the length's own once, and the
    // first sleeps there covered nothing). 90% of what fits in 65 us, and its headroom,
    // reach past 65 us: the margin is all of it.
    assert_eq!(
        est.plan(US * 100),
        Plan::Capped {
            margin: US * 65,
            wanted: US * 74
        }
    );
}

#[test]
fn a_young_length_reaches_its_neighbours_spread_above_its_own_samples() {
    let config = HybridConfig::new().with_initial_margin(US * 100);
    let long = Duration::from_millis(10);
    let native = long - US * 200;

    let mut est = MarginEstimator::new(config).unwrap();
    neighbour(&mut est);
    est.record(native, US * 120);
    assert_eq!(
        est.plan(long),
        Plan::Hybrid { margin: US * 154 },
        "120 + 34"
    );
    est.record(native, US * 90);
    assert_eq!(
        est.plan(long),
        Plan::Hybrid { margin: US * 124 },
        "the least, 90 + 34"
    );

    // With nothing else to go on, the reach is the initial margin: the first sleep of a
    // thread (its margin the initial one) is late when it oversleeps past it, and the next
    // margin reaches that far past that oversleep.
    let mut alone = MarginEstimator::new(config).unwrap();
    assert_eq!(alone.plan(long), Plan::Hybrid { margin: US * 100 });
    alone.record(native, US * 250);
    assert_eq!(alone.plan(long), Plan::Hybrid { margin: US * 350 });
    // So does another length, still with no trusted window to borrow from; with no floor
    // to pass the budget by (a lone sample may be a stall), the budget caps it.
    assert_eq!(
        alone.plan(WAIT),
        Plan::Capped {
            margin: WAIT / 4,
            wanted: US * 350
        }
    );
}

#[test]
fn a_first_sample_that_stalled_neither_spins_long_waits_whole_nor_stops_the_learning() {
    let config = HybridConfig::new().with_initial_margin(US * 100);
    let wait = Duration::from_millis(2);
    let mut est = MarginEstimator::new(config).unwrap();
    // The thread's first native part woke 3 ms late.
    est.record(wait - US * 100, Duration::from_millis(3));
    assert_eq!(
        est.short_threshold(wait),
        US * 100,
        "the threshold is at most the initial margin"
    );
    let plan = est.plan(wait);
    assert!(
        plan.margin() < wait,
        "a native part is left to learn from: {plan:?}"
    );
    assert_eq!(
        plan.margin(),
        wait / 4,
        "no floor from a lone sample: {plan:?}"
    );
}
