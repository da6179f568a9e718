//! `Interval`: the grid and the missed-tick policies of `Ticker`, awaited.

mod support;

use std::task::Waker;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use punctual::future::{self, Driver, DriverConfig};
use punctual::{Error, MissedTickPolicy};
use punctual_test_support::WakeCount;
use support::poll_once;

#[test]
fn live_ticks_follow_the_grid_and_are_never_early() {
    let period = Duration::from_nanos(333_333);
    let first = Instant::now() + period;
    let mut interval = future::interval_at(first, period).unwrap();
    block_on(async {
        let mut expected = 0;
        for _ in 0..300 {
            let tick = interval.tick().await;
            assert!(Instant::now() >= tick.deadline());
            assert!(tick.wake().woke() >= tick.deadline());
            assert_eq!(tick.index(), expected + tick.missed());
            assert_eq!(
                (tick.deadline() - first).as_nanos(),
                333_333 * u128::from(tick.index())
            );
            expected = tick.index() + 1;
        }
    });
    assert_eq!(interval.next_index(), interval.missed() + 300);
}

#[test]
fn skip_drops_overdue_ticks_and_waits_for_the_next_grid_point() {
    // Long enough that a stalled test thread (Wine, a loaded machine) keeps the tick counts.
    let period = Duration::from_millis(200);
    let first = Instant::now() - period * 10 - period / 2;
    let mut interval = future::interval_at(first, period).unwrap();
    assert_eq!(interval.policy(), MissedTickPolicy::Skip);
    block_on(async {
        let tick = interval.tick().await;
        assert_eq!((tick.index(), tick.missed()), (11, 11));
        assert_eq!(tick.deadline(), first + period * 11);
        let next = interval.tick().await;
        assert_eq!((next.index(), next.missed()), (12, 0));
    });
    assert_eq!(interval.missed(), 11);
}

#[test]
fn burst_fires_every_overdue_tick_at_once() {
    // Long enough that a stalled test thread (Wine, a loaded machine) keeps the tick counts.
    let period = Duration::from_millis(200);
    let first = Instant::now() - period * 5;
    let mut interval = future::interval_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Burst);
    let lateness: Vec<Duration> = block_on(async {
        let mut lateness = Vec::new();
        for k in 0..5 {
            let tick = interval.tick().await;
            assert_eq!((tick.index(), tick.missed()), (k, 0));
            lateness.push(tick.lateness());
        }
        lateness
    });
    assert!(
        lateness.windows(2).all(|w| w[0] > w[1]),
        "the backlog shrinks: {lateness:?}"
    );
    assert_eq!(interval.missed(), 0);
}

#[test]
fn delay_fires_the_overdue_tick_and_shifts_the_grid() {
    // Long enough that a stalled test thread (Wine, a loaded machine) keeps the tick counts.
    let period = Duration::from_millis(200);
    let first = Instant::now() - period * 3 - period / 2;
    let mut interval = future::interval_at(first, period)
        .unwrap()
        .with_policy(MissedTickPolicy::Delay);
    block_on(async {
        let late = interval.tick().await;
        assert_eq!((late.index(), late.missed()), (0, 3));
        assert!(late.lateness() >= period * 3);
        let next = interval.tick().await;
        assert_eq!((next.index(), next.missed()), (1, 0));
        assert_eq!(next.deadline(), late.wake().woke() + period);
    });
}

#[test]
fn a_dropped_tick_future_loses_nothing() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let period = Duration::from_millis(200);
    let first = Instant::now() + period;
    let mut interval = driver.interval_at(first, period).unwrap();
    let waker = Waker::from(WakeCount::new());
    {
        let mut tick = Box::pin(interval.tick());
        assert!(poll_once(&mut tick, &waker).is_pending());
    }
    let tick = block_on(interval.tick());
    assert_eq!(tick.index(), 0);
    assert_eq!(tick.deadline(), first);
    assert_eq!(driver.pending(), 0);
}

#[test]
fn bad_and_endless_periods_are_errors_or_waits_not_panics() {
    assert_eq!(
        future::interval(Duration::ZERO).unwrap_err(),
        Error::ZeroPeriod
    );
    let driver = Driver::new(DriverConfig::new()).unwrap();
    assert_eq!(
        driver
            .interval_at(Instant::now(), Duration::ZERO)
            .unwrap_err(),
        Error::ZeroPeriod
    );
    // Tick 0 is soon; tick 1 lies past the end of time: it never comes, and costs nothing.
    let first = Instant::now() + Duration::from_millis(1);
    let mut interval = driver.interval_at(first, Duration::MAX).unwrap();
    assert_eq!(block_on(interval.tick()).index(), 0);
    let count = WakeCount::new();
    let waker = Waker::from(count.clone());
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(interval.poll_tick(&mut cx).is_pending());
    assert_eq!(driver.pending(), 0);
}
