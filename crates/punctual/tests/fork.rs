//! After `fork(2)`: a child has only the thread that forked, so no driver thread. Each test
//! forks (`punctual_test_support::fork::in_child`) and checks in the child that the async
//! timers work on a driver of the child's own, that the parent's pending timers are neither
//! fired nor counted there, and that nothing hangs on a lock a parent's thread held at the
//! fork; the blocking `Sleeper` and `Ticker` too. A child that hangs is killed after a minute
//! and fails the test; one whose assertion fails exits with `PANICKED`, its message on
//! standard error.
#![cfg(unix)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};
use std::time::{Duration, Instant};

use futures::executor::block_on;
use punctual::future::{self, Driver, DriverConfig, SpinTail};
use punctual::{Sleeper, Ticker};
use punctual_test_support::fork::{in_child, Ended};
use punctual_test_support::WakeCount;

/// Longer than any stall of a loaded machine: only a hang reaches it.
const PATIENCE: Duration = Duration::from_secs(60);

/// Polls `sleep` once with a counting waker, so its timer is pending in its driver.
fn register(sleep: &mut future::Sleep, waker: &Waker) {
    let poll = Pin::new(sleep).poll(&mut Context::from_waker(waker));
    assert!(poll.is_pending(), "a sleep an hour away completed");
}

/// A sleep of `wait` on `driver` in the calling process, checked never early.
fn sleep_checked(driver: &Driver, wait: Duration) {
    let start = Instant::now();
    let wake = block_on(driver.sleep(wait));
    assert!(wake.woke() >= wake.deadline(), "{wake:?}");
    assert!(start.elapsed() >= wait, "{:?} of {wait:?}", start.elapsed());
}

#[test]
fn the_global_driver_is_the_childs_own_and_the_parents_timers_stay_the_parents() {
    let parent_wakes = WakeCount::new();
    let waker = Waker::from(parent_wakes.clone());
    let mut hour = Some(future::sleep(Duration::from_secs(3600)));
    register(hour.as_mut().unwrap(), &waker);
    // A timer the parent's driver fires while the child runs: the child must not.
    let mut soon = Some(future::sleep(Duration::from_millis(20)));
    register(soon.as_mut().unwrap(), &waker);
    assert_eq!(Driver::global().pending(), 2);

    let child = in_child(PATIENCE, || {
        let driver = Driver::global();
        assert_eq!(driver.pending(), 0, "the parent's timers came along");
        sleep_checked(driver, Duration::from_millis(10));
        block_on(future::sleep(Duration::from_micros(300)));
        // What was copied of the parent's is not fired here.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(parent_wakes.get(), 0, "a parent's timer fired in the child");
        assert_eq!(driver.pending(), 0);
        // A grandchild gets a driver of its own in turn.
        let grandchild = in_child(PATIENCE, || {
            sleep_checked(Driver::global(), Duration::from_millis(5));
            0
        });
        assert_eq!(grandchild, Ended::Exited(0), "the grandchild");
        sleep_checked(Driver::global(), Duration::from_millis(5));
        // Dropped here, the parent's registrations are not the child's to remove.
        drop(hour.take());
        drop(soon.take());
        assert_eq!(Driver::global().pending(), 0);
        0
    });
    assert_eq!(child, Ended::Exited(0));

    // The parent's driver carried on: its soon timer fired, its hour timer is pending.
    let start = Instant::now();
    while parent_wakes.get() == 0 && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(parent_wakes.get(), 1);
    sleep_checked(Driver::global(), Duration::from_millis(1));
    drop(hour);
    assert_eq!(Driver::global().pending(), 0);
}

#[test]
fn a_private_driver_and_its_sleeps_and_intervals_move_to_the_child() {
    let tail = SpinTail::Fixed(Duration::from_micros(50));
    let driver = Driver::new(DriverConfig::new().with_spin_tail(tail)).unwrap();
    let deadline = Instant::now() + Duration::from_millis(200);
    let mut made_before = Some(driver.sleep_until(deadline));
    let waker = Waker::from(WakeCount::new());
    register(made_before.as_mut().unwrap(), &waker);
    let mut ticks = Some(driver.interval(Duration::from_millis(2)).unwrap());
    assert_eq!(driver.pending(), 1);
    let mut driver = Some(driver);

    let child = in_child(PATIENCE, || {
        let here = driver.as_ref().unwrap();
        assert_eq!(here.config().spin_tail(), tail);
        assert_eq!(here.pending(), 0, "the parent's timers came along");
        // Awaited in the child, the parent's sleep keeps its deadline, never early.
        let wake = block_on(made_before.as_mut().unwrap());
        assert_eq!(wake.deadline(), deadline);
        assert!(Instant::now() >= deadline);
        let interval = ticks.as_mut().unwrap();
        let first = block_on(interval.tick());
        let second = block_on(interval.tick());
        assert_eq!(second.index(), first.index() + 1);
        assert!(Instant::now() >= second.deadline());
        sleep_checked(here, Duration::from_millis(3));
        assert_eq!(here.pending(), 0);
        assert!(here.stats().wakes >= 3, "{:?}", here.stats());
        drop(made_before.take());
        drop(ticks.take());
        drop(driver.take());
        0
    });
    assert_eq!(child, Ended::Exited(0));
    // The parent's copies are untouched by the child's use of its own.
    let driver = driver.unwrap();
    let wake = block_on(made_before.unwrap());
    assert_eq!(wake.deadline(), deadline);
    block_on(ticks.as_mut().unwrap().tick());
    drop(ticks);
    assert_eq!(driver.pending(), 0);
}

/// Forks while the driver thread is busy firing thousands of timers, so that some forks
/// land while it holds the timers' lock; the child drops the parent's driver and sleeps
/// (their storage forgotten or dropped, never locked) and sleeps on a new one.
#[test]
fn forks_while_the_driver_is_busy_never_hang_the_child() {
    for round in 0..20 {
        let driver = Driver::new(DriverConfig::new()).unwrap();
        let waker = Waker::from(WakeCount::new());
        let start = Instant::now();
        let mut sleeps: Vec<_> = (0..5_000u64)
            .map(|i| {
                let mut sleep = driver.sleep_until(start + Duration::from_micros(i % 500));
                let _ = Pin::new(&mut sleep).poll(&mut Context::from_waker(&waker));
                sleep
            })
            .collect();
        let child = in_child(PATIENCE, move || {
            assert_eq!(driver.pending(), 0, "the parent's timers came along");
            sleep_checked(&driver, Duration::from_millis(1));
            sleeps.clear();
            drop(driver);
            sleep_checked(
                &Driver::new(DriverConfig::new()).unwrap(),
                Duration::from_millis(1),
            );
            0
        });
        assert_eq!(child, Ended::Exited(0), "round {round}");
    }
}

#[test]
fn blocking_sleepers_and_tickers_work_in_a_child() {
    let mut sleeper = Sleeper::hybrid();
    sleeper.sleep(Duration::from_millis(1));
    let mut ticker = Ticker::new(Duration::from_millis(2)).unwrap();
    ticker.tick();
    let child = in_child(PATIENCE, || {
        for wait in [Duration::from_micros(50), Duration::from_millis(2)] {
            let wake = sleeper.sleep(wait);
            assert!(wake.woke() >= wake.deadline(), "{wake:?}");
        }
        let wake = Sleeper::native().sleep(Duration::from_millis(1));
        assert!(wake.woke() >= wake.deadline(), "{wake:?}");
        let before = ticker.next_index();
        let tick = ticker.tick();
        assert!(tick.index() >= before);
        assert!(Instant::now() >= tick.deadline());
        0
    });
    assert_eq!(child, Ended::Exited(0));
}
