//! The grid: exact integer arithmetic and the missed-tick policies.

use std::time::{Duration, Instant};

use punctual::{Error, MissedTickPolicy, Sleeper, Strategy, Ticker};

#[test]
fn deadlines_are_exact_multiples_of_the_period() {
    let first = Instant::now();
    for period_ns in [1u64, 333, 1_000_001, 16_666_667, 999_999_999, 1_000_000_007] {
        let period = Duration::from_nanos(period_ns);
        let ticker = Ticker::starting_at(first, period).unwrap();
        for k in [
            0u64,
            1,
            2,
            3,
            999_999,
            1_000_000,
            123_456_789,
            10_000_000_000,
        ] {
            let Some(due) = ticker.deadline_of(k) else {
                continue;
            };
            assert_eq!(
                (due - first).as_nanos(),
                u128::from(period_ns) * u128::from(k),
                "period {period_ns} ns, tick {k}"
            );
        }
    }
}

#[test]
fn a_million_ticks_carry_no_drift() {
    // The grid starts far enough in the past that every tick is due at once (Burst fires them
    // all), so a million ticks run in well under a second and every deadline is checked.
    let period = Duration::from_nanos(333);
    let ticks = 1_000_000u64;
    let first = Instant::now() - period * (ticks as u32 + 10);
    let mut ticker = Ticker::starting_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Burst)
        .with_sleeper(Sleeper::spin());
    for k in 0..ticks {
        let tick = ticker.tick();
        assert_eq!(tick.index(), k);
        assert_eq!(tick.missed(), 0);
        assert_eq!((tick.deadline() - first).as_nanos(), 333 * u128::from(k));
        assert!(tick.wake().woke() >= tick.deadline());
    }
    assert_eq!(ticker.next_index(), ticks);
    assert_eq!(
        (ticker.deadline_of(ticks).unwrap() - first).as_nanos(),
        333 * u128::from(ticks)
    );
}

#[test]
fn live_ticks_follow_the_grid_with_every_strategy() {
    for strategy in Strategy::ALL {
        let period = Duration::from_micros(200);
        let first = Instant::now() + period;
        let mut ticker = Ticker::starting_at(first, period)
            .unwrap()
            .with_sleeper(Sleeper::new(strategy));
        let mut expected = 0;
        for _ in 0..500 {
            let tick = ticker.tick();
            assert!(Instant::now() >= tick.deadline());
            assert_eq!(
                tick.index(),
                expected + tick.missed(),
                "skip moves the index by what it missed"
            );
            assert_eq!(
                (tick.deadline() - first).as_nanos(),
                200_000 * u128::from(tick.index())
            );
            expected = tick.index() + 1;
        }
    }
}

#[test]
fn skip_drops_overdue_ticks_and_waits_for_the_next_grid_point() {
    let period = Duration::from_millis(2);
    let first = Instant::now() - period * 10 - period / 2;
    let mut ticker = Ticker::starting_at(first, period).unwrap();
    assert_eq!(
        ticker.policy(),
        MissedTickPolicy::Skip,
        "skip is the default"
    );
    let tick = ticker.tick();
    // Grid points 0..=10 had passed; 11 was the first still ahead.
    assert_eq!((tick.index(), tick.missed()), (11, 11));
    assert_eq!(tick.deadline(), first + period * 11);
    assert!(
        tick.lateness() < period,
        "the tick waited for its grid point"
    );
    let next = ticker.tick();
    assert_eq!((next.index(), next.missed()), (12, 0));
    assert_eq!(ticker.missed(), 11);
}

#[test]
fn burst_fires_every_overdue_tick_at_once() {
    let period = Duration::from_millis(2);
    let first = Instant::now() - period * 5;
    let mut ticker = Ticker::starting_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Burst);
    let lateness: Vec<Duration> = (0..5)
        .map(|k| {
            let tick = ticker.tick();
            assert_eq!((tick.index(), tick.missed()), (k, 0));
            tick.lateness()
        })
        .collect();
    assert!(
        lateness.windows(2).all(|w| w[0] > w[1]),
        "the backlog shrinks: {lateness:?}"
    );
    assert_eq!(ticker.missed(), 0);
}

#[test]
fn delay_fires_the_overdue_tick_and_shifts_the_grid() {
    let period = Duration::from_millis(2);
    let first = Instant::now() - period * 3 - period / 2;
    let mut ticker = Ticker::starting_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Delay);
    let late = ticker.tick();
    assert_eq!((late.index(), late.missed()), (0, 3));
    assert!(late.lateness() >= period * 3);
    let next = ticker.tick();
    assert_eq!((next.index(), next.missed()), (1, 0));
    assert_eq!(
        next.deadline(),
        late.wake().woke() + period,
        "the grid re-anchored on the late tick"
    );
}

#[test]
fn bad_periods_and_far_ticks_are_errors_not_panics() {
    assert_eq!(Ticker::new(Duration::ZERO).unwrap_err(), Error::ZeroPeriod);
    assert_eq!(
        Error::ZeroPeriod.to_string(),
        "a ticker period must be longer than zero"
    );
    let ticker = Ticker::new(Duration::from_secs(1)).unwrap();
    assert_eq!(ticker.deadline_of(u64::MAX), None);
    assert!(
        Ticker::new(Duration::MAX).is_ok(),
        "a huge period is valid, just far away"
    );
}
