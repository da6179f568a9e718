//! The promise every strategy keeps: no wait ends before its deadline.

use std::time::{Duration, Instant};

use punctual::{HybridConfig, Sleeper, Strategy, Wake};
use punctual_test_support::xorshift;

/// How many sleeps the mixed run makes; a slow timer (Wine) may ask for fewer with
/// `PUNCTUAL_TEST_SLEEPS`, and the count it ran is printed either way.
fn sleeps() -> usize {
    std::env::var("PUNCTUAL_TEST_SLEEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

#[test]
fn no_strategy_wakes_early_over_many_mixed_sleeps() {
    const LENGTHS_NS: [u64; 10] = [
        0, 1, 100, 1_000, 3_000, 10_000, 20_000, 40_000, 75_000, 250_000,
    ];
    let mut sleepers: Vec<Sleeper> = Strategy::ALL.iter().map(|&s| Sleeper::new(s)).collect();
    let total = sleeps();
    let mut early = 0usize;
    let mut per_strategy = [0usize; 3];
    // A cheap generator so lengths and strategies do not fall into a fixed pattern.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..total {
        xorshift(&mut x);
        // Long sleeps are rarer, to keep the run to a few seconds.
        let len = LENGTHS_NS[(x % 10) as usize >> usize::from(x % 3 != 0)];
        let which = (x >> 32) as usize % 4;
        let duration = Duration::from_nanos(len);
        let start = Instant::now();
        let deadline = start + duration;
        let wake = match which {
            3 => {
                if i % 2 == 0 {
                    punctual::sleep(duration)
                } else {
                    punctual::sleep_until(deadline)
                }
            }
            s => {
                per_strategy[s] += 1;
                if i % 2 == 0 {
                    sleepers[s].sleep_until(deadline)
                } else {
                    sleepers[s].sleep(duration)
                }
            }
        };
        let after = Instant::now();
        if after < deadline || wake.woke() < wake.deadline() || wake.woke() - start < duration {
            early += 1;
        }
        assert!(
            wake.deadline() >= deadline,
            "sleep(d) set its deadline before now + d"
        );
    }
    println!("{total} sleeps, per strategy {per_strategy:?}, early {early}");
    assert_eq!(
        early, 0,
        "{early} of {total} sleeps returned before their deadline"
    );
    assert!(
        per_strategy.iter().all(|&n| n > total / 8),
        "every strategy ran: {per_strategy:?}"
    );
}

/// Counts the waits of `waits` that returned before their deadline, each asked as a duration
/// or a deadline in turn.
fn early_among(
    waits: &[Duration],
    mut sleep: impl FnMut(usize, Duration, Instant) -> Wake,
) -> usize {
    let mut early = 0;
    for (i, &duration) in waits.iter().enumerate() {
        let deadline = Instant::now() + duration;
        let wake = sleep(i, duration, deadline);
        if Instant::now() < deadline || wake.woke() < wake.deadline() {
            early += 1;
        }
    }
    early
}

/// Mixed lengths from 1 us to 5 ms, starting from nothing: fresh hybrid sleepers, and fresh
/// threads' own sleeper behind `punctual::sleep`, go through the waits spun whole on the
/// prior, the probes among them, young lengths leaning on their neighbours and margins
/// borrowed whole, and the `deadline_sleep` exercise's order (five of each length, longest
/// first, then back up). None returns before its deadline.
#[test]
fn cold_hybrid_sleepers_never_wake_early_over_mixed_lengths() {
    const LENGTHS_US: [u64; 10] = [1, 2, 5, 10, 30, 60, 100, 300, 1_000, 5_000];
    let us = Duration::from_micros;
    let exercise: Vec<Duration> = [5_000, 1_000, 500, 100, 1, 100, 500, 1_000, 5_000]
        .iter()
        .flat_map(|&n| [us(n); 5])
        .collect();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut mixes: Vec<Vec<Duration>> = (0..12)
        .map(|_| {
            (0..40)
                .map(|_| us(LENGTHS_US[(xorshift(&mut x) % 10) as usize]))
                .collect()
        })
        .collect();
    mixes.push(exercise);
    let mut early = 0;
    let mut waits = 0;
    for mix in &mixes {
        waits += 2 * mix.len();
        let mut sleeper = Sleeper::hybrid();
        early += early_among(mix, |i, duration, deadline| {
            if i % 2 == 0 {
                sleeper.sleep(duration)
            } else {
                sleeper.sleep_until(deadline)
            }
        });
        let mix = mix.clone();
        early += std::thread::spawn(move || {
            early_among(&mix, |i, duration, deadline| {
                if i % 2 == 0 {
                    punctual::sleep(duration)
                } else {
                    punctual::sleep_until(deadline)
                }
            })
        })
        .join()
        .expect("the sleeping thread");
    }
    assert_eq!(early, 0, "{early} of {waits} cold waits returned early");
}

#[test]
fn a_past_deadline_returns_at_once_with_its_lateness() {
    let long_ago = Instant::now();
    std::thread::sleep(Duration::from_millis(5));
    for mut sleeper in Strategy::ALL.map(Sleeper::new) {
        let wake = sleeper.sleep_until(long_ago);
        assert!(wake.lateness() >= Duration::from_millis(5));
        assert_eq!(wake.deadline(), long_ago);
        assert_eq!(wake.spun(), Duration::ZERO);
        assert_eq!(sleeper.stats().sleeps, 0, "a past deadline is not a sleep");
    }
    let wake = punctual::sleep(Duration::ZERO);
    assert!(wake.woke() >= wake.deadline());
}

#[test]
fn duration_max_sleeps_instead_of_panicking() {
    for strategy in Strategy::ALL {
        let sleeper = std::thread::spawn(move || {
            Sleeper::new(strategy).sleep(Duration::MAX);
        });
        let free = std::thread::spawn(|| {
            punctual::sleep(Duration::MAX);
        });
        std::thread::sleep(Duration::from_millis(100));
        // A panic or an overflow would have ended the thread.
        assert!(
            !sleeper.is_finished(),
            "{strategy}: Sleeper::sleep(Duration::MAX) returned"
        );
        assert!(
            !free.is_finished(),
            "punctual::sleep(Duration::MAX) returned"
        );
    }
}

#[test]
fn spin_reports_its_spin_and_native_reports_none() {
    let mut spin = Sleeper::spin();
    let start = Instant::now();
    let wake = spin.sleep_until(start + Duration::from_micros(200));
    assert!(
        wake.spun() <= wake.woke() - start,
        "spun longer than it waited"
    );
    assert_eq!(spin.stats().sleeps, 1);
    assert_eq!(spin.stats().spin_time, wake.spun());

    let mut native = Sleeper::native();
    let wake = native.sleep(Duration::from_micros(200));
    assert_eq!(wake.spun(), Duration::ZERO);
    assert_eq!(native.stats().spin_time, Duration::ZERO);
}

#[test]
fn hybrid_counters_add_up() {
    let mut hybrid = Sleeper::hybrid_with(HybridConfig::new().with_window(100)).unwrap();
    // 3 ms waits: their native parts (2.25 to 3 ms within the default budget) all fall in
    // the estimator's 1 to 4 ms length bucket unless the thread stalls for over a
    // millisecond before planning one. (400 us waits, 44 us from a bucket's edge, did not
    // stay in one under CI's load.)
    for _ in 0..150 {
        hybrid.sleep(Duration::from_millis(3));
    }
    let stats = hybrid.stats();
    assert_eq!(stats.sleeps, 150);
    assert!(stats.spun + stats.native_late + stats.native_only <= stats.sleeps);
    assert!(stats.capped <= stats.sleeps);
    assert!(stats.lost_cpu <= stats.spun, "only spins lose the CPU");
    assert!(
        stats.backed_off <= stats.native_only,
        "a backed-off wait is native all the way"
    );
    assert_eq!(
        hybrid.estimator().samples(),
        100,
        "one window per length bucket"
    );
    if stats.spun == 0 {
        assert_eq!(stats.spin_time, Duration::ZERO);
    }
}

#[test]
fn timer_info_reports_the_mechanism_and_the_slack_it_set() {
    punctual::Sleeper::native().sleep(Duration::from_micros(10));
    let info = punctual::timer_info();
    assert!(!info.mechanism.is_empty());
    if info.degraded.is_none() {
        assert!(info.high_resolution, "{info}");
        if let Some(slack) = info.timer_slack {
            assert_eq!(slack, Duration::from_nanos(1), "{info}");
        }
    }
    println!("{info}");
}

#[test]
fn strategies_parse_by_name() {
    for strategy in Strategy::ALL {
        assert_eq!(strategy.name().parse::<Strategy>(), Ok(strategy));
        assert_eq!(strategy.to_string(), strategy.name());
    }
    let err = "busy".parse::<Strategy>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown strategy `busy` (expected native, hybrid or spin)"
    );
}
