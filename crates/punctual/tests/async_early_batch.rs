//! The driver fires, in one batch, the timers that fall due within what its last wait
//! overslept, before they are due (`thread.rs`, `early_window_ns`): their sleeps, polled
//! early, must spin to their deadlines, so that not one completes before it, whatever
//! nanosecond apart the deadlines are, and every timer must be fired once.

use std::time::{Duration, Instant};

use futures::future::join_all;
use punctual::future::{Driver, DriverConfig, SpinTail};

/// Per round: a lone timer, then a group due a few microseconds after it, a few
/// nanoseconds apart: the lone timer's wait runs its whole length and its oversleep opens
/// the window, and the group falls due within it, polled soon after it fires (few tasks).
const GROUP: usize = 200;
const APART_NS: u64 = 3;
const ROUNDS: u64 = 40;

/// Liveness only: every task must be woken; a lost wake would otherwise hang the test.
const GIVE_UP: Duration = Duration::from_secs(30);

fn run_on_tokio(rt: tokio::runtime::Runtime, config: DriverConfig) {
    let driver = Driver::new(config).unwrap();
    let mut fired = 0;
    for round in 0..ROUNDS {
        let lone = Instant::now() + Duration::from_millis(5);
        // From 1 to 40 us after the lone timer, across the rounds.
        let group = lone + Duration::from_micros(1 + round);
        let deadlines = std::iter::once(lone)
            .chain((0..GROUP as u64).map(|i| group + Duration::from_nanos(i * APART_NS)));
        let early = rt.block_on(async {
            let tasks: Vec<_> = deadlines
                .map(|deadline| {
                    let sleep = driver.sleep_until(deadline);
                    tokio::spawn(async move {
                        let wake = sleep.await;
                        usize::from(Instant::now() < deadline || wake.woke() < deadline)
                    })
                })
                .collect();
            tokio::time::timeout(GIVE_UP, join_all(tasks)).await
        });
        let early: usize = early
            .unwrap_or_else(|_| panic!("round {round}: tasks still asleep after {GIVE_UP:?}"))
            .into_iter()
            .map(Result::unwrap)
            .sum();
        assert_eq!(early, 0, "round {round}: {early} sleeps ended early");
        assert_eq!(driver.pending(), 0, "round {round}: timers left pending");
        fired += GROUP as u64 + 1;
        let stats = driver.stats();
        assert!(
            stats.wakes <= fired,
            "round {round}: a timer fired twice: {stats:?}"
        );
        assert_eq!(stats.waker_panics, 0);
    }
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn an_early_batch_never_completes_a_sleep_early_on_tokio_current_thread() {
    run_on_tokio(current_thread(), DriverConfig::new());
}

#[test]
fn an_early_batch_never_completes_a_sleep_early_on_tokio_multi_thread() {
    run_on_tokio(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap(),
        DriverConfig::new(),
    );
}

#[test]
fn an_early_batch_on_top_of_a_fixed_spin_tail_never_completes_a_sleep_early() {
    let tail = SpinTail::Fixed(Duration::from_micros(20));
    run_on_tokio(current_thread(), DriverConfig::new().with_spin_tail(tail));
}

/// The same rounds, with every sleep polled again as soon as it can be (a busy poll on
/// the test's thread, no executor in between), so that a timer fired early is polled
/// before its deadline: the sleep must spin there, not complete.
fn busy_poll_rounds(config: DriverConfig) {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    let driver = Driver::new(config).unwrap();
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    for round in 0..ROUNDS {
        let lone = Instant::now() + Duration::from_millis(5);
        let group = lone + Duration::from_micros(1 + round);
        let mut sleeps: Vec<_> = std::iter::once(lone)
            .chain((0..GROUP as u64).map(|i| group + Duration::from_nanos(i * APART_NS)))
            .map(|deadline| (deadline, driver.sleep_until(deadline)))
            .collect();
        let give_up = Instant::now() + GIVE_UP;
        while !sleeps.is_empty() {
            assert!(Instant::now() < give_up, "round {round}: sleeps never woke");
            sleeps.retain_mut(|(deadline, sleep)| match Pin::new(sleep).poll(&mut cx) {
                Poll::Ready(wake) => {
                    let now = Instant::now();
                    assert!(
                        now >= *deadline && wake.woke() >= *deadline,
                        "round {round}: a sleep completed {:?} early",
                        deadline.saturating_duration_since(now)
                    );
                    false
                }
                Poll::Pending => true,
            });
        }
        assert_eq!(driver.pending(), 0, "round {round}: timers left pending");
    }
}

#[test]
fn an_early_batch_never_completes_a_sleep_early_when_polled_at_once() {
    busy_poll_rounds(DriverConfig::new());
}
