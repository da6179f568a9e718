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
    let period = Duration::from_millis(20);
    let first = Instant::now() - period * 10 - period / 2;
    let mut ticker = Ticker::starting_at(first, period).unwrap();
    assert_eq!(
        ticker.policy(),
        MissedTickPolicy::Skip,
        "skip is the default"
    );
    // Grid points 0..=10 had passed; 11 is the first still ahead unless this thread stalled
    // since `first` was read, so the checks hold for whichever grid point was next.
    let before = Instant::now();
    let tick = ticker.tick();
    let after = Instant::now();
    let k = tick.index();
    assert!(k >= 11, "grid points 0..=10 had passed, got {k}");
    assert_eq!(tick.missed(), k, "every grid point before it was dropped");
    assert_eq!(tick.deadline(), first + period * k as u32);
    assert!(
        tick.deadline() > before,
        "the tick waited for a grid point still ahead"
    );
    assert!(
        first + period * (k as u32 - 1) <= after,
        "and for the first one ahead, not a later one"
    );
    assert!(after >= tick.deadline(), "never early");
    let next = ticker.tick();
    assert_eq!(next.index(), k + 1 + next.missed());
    assert_eq!(ticker.missed(), k + next.missed());
}

#[test]
fn burst_fires_every_overdue_tick_at_once() {
    // A long period: the backlog shrinks unless one tick took a whole period to fire.
    let period = Duration::from_secs(1);
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
    // Grid points 1..=3 had passed (more if this thread stalled); tick 0 fires for them all.
    assert_eq!(late.index(), 0);
    assert!(late.missed() >= 3, "missed {}", late.missed());
    assert!(late.lateness() >= period * late.missed() as u32);
    let next = ticker.tick();
    assert_eq!(next.index(), 1, "delay never skips an index");
    assert_eq!(
        next.deadline(),
        late.wake().woke() + period,
        "the grid re-anchored on the late tick"
    );
    assert_eq!(ticker.missed(), late.missed() + next.missed());
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

#[test]
fn tick_ahead_ends_the_lead_before_each_tick_on_the_grid_of_tick() {
    // Each tick's deadline is on the grid, its index follows the last by one plus the
    // points it missed, and the library's part ends the lead before it (at once for a tick
    // due sooner): what `tick` reports, less the last stretch the caller spins.
    let period = Duration::from_micros(300);
    let lead = Duration::from_micros(50);
    for policy in [MissedTickPolicy::Burst, MissedTickPolicy::Skip] {
        let first = Instant::now() + Duration::from_millis(1);
        let mut ticker = Ticker::starting_at(first, period)
            .unwrap()
            .with_policy(policy);
        let mut next = 0;
        for k in 0..40 {
            let tick = ticker.tick_ahead(lead);
            assert_eq!(tick.index(), next + tick.missed(), "{policy:?} tick {k}");
            assert_eq!(
                (tick.deadline() - first).as_nanos(),
                period.as_nanos() * u128::from(tick.index()),
                "{policy:?} tick {k}"
            );
            let early = tick.early();
            assert!(early.woke() >= early.deadline(), "{policy:?} tick {k}");
            assert!(early.deadline() <= tick.deadline(), "{policy:?} tick {k}");
            assert!(
                tick.deadline() - early.deadline() <= lead,
                "{policy:?} tick {k}"
            );
            assert_eq!(ticker.next_index(), tick.index() + 1, "{policy:?} tick {k}");
            next = tick.index() + 1;
            // The caller's last stretch.
            while Instant::now() < tick.deadline() {}
        }
    }
}

#[test]
fn tick_ahead_of_an_overdue_tick_returns_at_once() {
    let period = Duration::from_millis(10);
    let first = Instant::now() - Duration::from_secs(1);
    let mut ticker = Ticker::starting_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Burst);
    let early = ticker.tick_ahead(Duration::from_micros(50));
    assert_eq!(early.index(), 0);
    assert_eq!(early.deadline(), first);
    assert!(early.early().woke() >= first);
    assert_eq!(ticker.next_index(), 1);
}
