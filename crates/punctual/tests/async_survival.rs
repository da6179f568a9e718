//! The driver outlives what its users do wrong: tasks that panic with a timer pending,
//! wakers that panic when woken, and runtimes shut down with timers pending.

mod support;

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Poll, Wake, Waker};
use std::time::{Duration, Instant};

use futures::future::join_all;
use punctual::future::{Driver, DriverConfig};
use punctual_test_support::WakeCount;
use support::{poll_once, wait_for};

/// Whatever is left of `driver` still keeps time: a batch of short sleeps completes.
fn still_works(driver: &Driver) {
    let sleeps = (0..100u64).map(|i| driver.sleep(Duration::from_micros(10 * i)));
    for wake in futures::executor::block_on(join_all(sleeps)) {
        assert!(wake.woke() >= wake.deadline());
    }
    assert_eq!(driver.pending(), 0);
}

#[test]
fn a_task_that_panics_with_a_timer_pending_leaves_nothing_behind() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let driver = driver.clone();
            rt.spawn(async move {
                // Far enough ahead to be pending at the first poll on a loaded machine.
                let mut sleep = driver.sleep(Duration::from_millis(100 + i));
                poll_fn(|cx| {
                    assert!(Pin::new(&mut sleep).poll(cx).is_pending());
                    Poll::Ready(())
                })
                .await;
                if i % 2 == 0 {
                    panic!("task {i} panics with its timer pending");
                }
                sleep.await;
            })
        })
        .collect();
    let results = rt.block_on(join_all(tasks));
    assert_eq!(results.iter().filter(|r| r.is_err()).count(), 25);
    assert_eq!(driver.pending(), 0);
    still_works(&driver);
}

struct PanicOnWake;

impl Wake for PanicOnWake {
    fn wake(self: Arc<Self>) {
        panic!("this waker panics when woken");
    }
}

#[test]
fn a_waker_that_panics_does_not_stop_the_driver() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let bad = Waker::from(Arc::new(PanicOnWake));
    let count = WakeCount::new();
    let good = Waker::from(count.clone());
    // Far enough ahead to be pending at the first poll on a loaded machine (1 ms was not,
    // under Wine in a full test run).
    let mut doomed: Vec<_> = (0..3u64)
        .map(|i| driver.sleep(Duration::from_millis(100 + i)))
        .collect();
    for sleep in &mut doomed {
        assert!(poll_once(sleep, &bad).is_pending());
    }
    let mut after = driver.sleep(Duration::from_millis(200));
    assert!(poll_once(&mut after, &good).is_pending());
    assert!(
        wait_for(Duration::from_secs(10), || count.get() == 1),
        "the timer after the panicking wakers never fired"
    );
    assert_eq!(driver.stats().waker_panics, 3);
    for sleep in &mut doomed {
        assert!(
            poll_once(sleep, &good).is_ready(),
            "due, whoever failed to wake it"
        );
    }
    still_works(&driver);
}

#[test]
fn runtimes_shut_down_with_timers_pending_leave_nothing_behind() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    for multi_thread in [false, true] {
        let rt = if multi_thread {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap()
        } else {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
        };
        for i in 0..1_000u64 {
            let sleep = driver.sleep(Duration::from_millis(1) + Duration::from_secs(i % 7 * 60));
            rt.spawn(async move {
                sleep.await;
            });
        }
        // Let the tasks register: 857 of them sleep a minute or more.
        rt.block_on(async {
            let give_up = Instant::now() + Duration::from_secs(10);
            while driver.pending() < 857 && Instant::now() < give_up {
                tokio::task::yield_now().await;
            }
        });
        assert!(driver.pending() >= 857, "timers pending at shutdown");
        if multi_thread {
            rt.shutdown_background();
            // The workers drop their tasks on their own threads.
            assert!(wait_for(Duration::from_secs(10), || driver.pending() == 0));
        } else {
            drop(rt);
            assert_eq!(driver.pending(), 0);
        }
        still_works(&driver);
    }
    // And a new runtime on the same driver.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let wake = rt.block_on(driver.sleep(Duration::from_micros(300)));
    assert!(wake.woke() >= wake.deadline());
}

#[test]
fn a_sleep_outlives_its_drivers_last_handle() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let sleep = driver.sleep(Duration::from_secs(3600));
    drop(driver);
    // The sleep still holds the driver, whose thread keeps serving it.
    let mut sleep = sleep;
    let waker = Waker::from(WakeCount::new());
    assert!(poll_once(&mut sleep, &waker).is_pending());
    sleep.reset(Instant::now() + Duration::from_micros(200));
    futures::executor::block_on(&mut sleep);
    drop(sleep);
}
