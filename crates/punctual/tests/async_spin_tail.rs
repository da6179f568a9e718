//! The end-to-end spin tail: the driver fires early, the task spins to the deadline in
//! `poll`. Invariants only: never early, a spin never longer than its margin (and so the
//! budget) allows, counters that add up, and nothing left behind by a sleep fired early.

mod support;

use std::time::{Duration, Instant};

use futures::executor::block_on;
use futures::future::join_all;
use punctual::future::{Driver, DriverConfig, SpinTail};
use punctual::margin::Plan;
use punctual::{HybridConfig, MissedTickPolicy};
use punctual_test_support::xorshift;
use punctual_test_support::WakeCount;
use support::{poll_once, wait_for};

fn driver(tail: SpinTail) -> Driver {
    Driver::new(DriverConfig::new().with_spin_tail(tail)).unwrap()
}

#[test]
fn a_fixed_tail_spins_in_the_task_and_counts_every_sleep() {
    let margin = Duration::from_micros(300);
    let driver = driver(SpinTail::Fixed(margin));
    assert_eq!(
        driver.plan(Duration::from_millis(2)),
        Plan::Hybrid { margin }
    );
    let mut spun_total = Duration::ZERO;
    block_on(async {
        for _ in 0..30 {
            let sleep = driver.sleep(Duration::from_millis(2));
            let deadline = sleep.deadline();
            let wake = sleep.await;
            assert!(Instant::now() >= deadline && wake.woke() >= deadline);
            assert!(
                wake.spun() <= margin + wake.lateness(),
                "spun {:?} with a margin of {margin:?}",
                wake.spun()
            );
            spun_total += wake.spun();
        }
    });
    let stats = driver.stats();
    // block_on polls only when woken, so each sleep, fired early, was polled either within
    // its margin (and spun) or past its deadline (its margin fell short).
    assert_eq!(stats.spun + stats.margin_overrun, 30, "{stats:?}");
    assert_eq!(stats.spin_time, spun_total);
    assert_eq!(stats.wakes, 30);
    assert_eq!((stats.capped, stats.native_only), (0, 0));
    assert_eq!(driver.pending(), 0);
}

#[test]
fn a_learned_tail_spins_within_its_budget_on_a_busy_executor() {
    let budget = 0.5;
    let driver = driver(SpinTail::Learned(HybridConfig::new().with_budget(budget)));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // First one sleep at a time, so the tail learns; then many at once.
    for concurrent in [1usize, 200] {
        let tasks: Vec<_> = (0..200u64)
            .map(|i| {
                let driver = driver.clone();
                async move {
                    let mut x = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let length = Duration::from_micros(50 + xorshift(&mut x) % 3_000);
                    let created = Instant::now();
                    let sleep = driver.sleep(length);
                    let deadline = sleep.deadline();
                    let wake = sleep.await;
                    let allowed = (deadline - created).mul_f64(budget) + wake.lateness();
                    let early = Instant::now() < deadline || wake.woke() < deadline;
                    // A margin may pass the budget by the floor of recent delays (their 1st
                    // percentile): only a sleep polled sooner than that spins past it. No spin
                    // starts before the sleep was made.
                    let over = wake.spun() > allowed;
                    let broken = early || wake.spun() > deadline - created + wake.lateness();
                    (usize::from(broken), usize::from(over), wake.spun())
                }
            })
            .collect();
        let results: Vec<(usize, usize, Duration)> = rt.block_on(async {
            let mut results = Vec::new();
            if concurrent == 1 {
                for task in tasks {
                    results.push(task.await);
                }
            } else {
                let handles: Vec<_> = tasks.into_iter().map(tokio::spawn).collect();
                for handle in handles {
                    results.push(handle.await.unwrap());
                }
            }
            results
        });
        let broken: usize = results.iter().map(|r| r.0).sum();
        assert_eq!(
            broken, 0,
            "{broken} sleeps early or spinning past their wait"
        );
        // How often a spin passes the budget depends on the scheduler (a descheduled poll
        // shortens the wait the margin was planned for), so it is a benchmark figure, shown
        // here and never asserted.
        let over: usize = results.iter().map(|r| r.1).sum();
        println!("{concurrent} at once: {over} of 200 spun past the budget");
        let stats = driver.stats();
        println!("{concurrent} at once: {stats:?}");
        assert!(stats.spun <= 200 * if concurrent == 1 { 1 } else { 2 });
    }
    let stats = driver.stats();
    assert!(stats.spun + stats.margin_overrun <= 400);
    assert_eq!(driver.pending(), 0);
}

#[test]
fn spin_time_adds_up_to_the_wakes_spins() {
    let driver = driver(SpinTail::Learned(HybridConfig::new().with_budget(1.0)));
    let spun: Duration = block_on(async {
        let mut spun = Duration::ZERO;
        for i in 0..40u64 {
            spun += driver
                .sleep(Duration::from_micros(100 + 50 * i))
                .await
                .spun();
        }
        spun
    });
    let stats = driver.stats();
    assert_eq!(stats.spin_time, spun, "{stats:?}");
    assert!(stats.spun + stats.margin_overrun <= 40);
    // Each spin is a sleep's, once.
    assert!(stats.spun <= 40);
}

#[test]
fn a_sleep_first_polled_within_its_margin_spins_without_registering() {
    let driver = driver(SpinTail::Fixed(Duration::from_millis(5)));
    let count = WakeCount::new();
    let mut sleep = driver.sleep(Duration::from_millis(1));
    let deadline = sleep.deadline();
    let wake = match poll_once(&mut sleep, &std::task::Waker::from(count.clone())) {
        std::task::Poll::Ready(wake) => wake,
        std::task::Poll::Pending => panic!("a sleep within its margin waits"),
    };
    assert!(Instant::now() >= deadline && wake.woke() >= deadline);
    assert!(wake.spun() > Duration::ZERO);
    let stats = driver.stats();
    assert_eq!((stats.spun, stats.wakes), (1, 0));
    assert_eq!(driver.pending(), 0);
    assert_eq!(count.get(), 0);
}

#[test]
fn a_sleep_dropped_after_an_early_fire_leaves_nothing_behind() {
    let driver = driver(SpinTail::Fixed(Duration::from_millis(40)));
    let empty = driver.allocated_bytes();
    let count = WakeCount::new();
    let waker = std::task::Waker::from(count.clone());
    let mut sleep = driver.sleep(Duration::from_millis(50));
    assert!(poll_once(&mut sleep, &waker).is_pending());
    assert_eq!(driver.pending(), 1);
    // Fired about 10 ms in, 40 ms before its deadline.
    assert!(wait_for(Duration::from_secs(10), || count.get() == 1));
    assert_eq!(driver.stats().wakes, 1);
    drop(sleep);
    assert_eq!(driver.pending(), 0);
    assert!(driver.allocated_bytes() <= empty.max(4096));
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(count.get(), 1, "woken again after the drop");
    let stats = driver.stats();
    assert_eq!((stats.spun, stats.margin_overrun), (0, 0));
}

#[test]
fn a_reset_plans_the_margin_again() {
    let driver = driver(SpinTail::Fixed(Duration::from_millis(1)));
    let count = WakeCount::new();
    let waker = std::task::Waker::from(count.clone());
    let mut sleep = driver.sleep(Duration::from_secs(3600));
    assert!(poll_once(&mut sleep, &waker).is_pending());
    let sooner = Instant::now() + Duration::from_millis(20);
    sleep.reset(sooner);
    // Fired a millisecond early, at the latest when the deadline comes.
    assert!(wait_for(Duration::from_secs(10), || count.get() == 1));
    let wake = block_on(&mut sleep);
    assert_eq!(wake.deadline(), sooner);
    assert!(Instant::now() >= sooner && wake.woke() >= sooner);
    assert!(wake.spun() <= Duration::from_millis(1) + wake.lateness());
    assert_eq!(driver.pending(), 0);
}

#[test]
fn interval_ticks_with_a_spin_tail_are_never_early() {
    let driver = driver(SpinTail::Learned(HybridConfig::new()));
    let mut interval = driver
        .interval(Duration::from_micros(400))
        .unwrap()
        .with_policy(MissedTickPolicy::Burst);
    block_on(async {
        for k in 0..200 {
            let tick = interval.tick().await;
            assert_eq!(tick.index(), k);
            assert!(Instant::now() >= tick.deadline());
            assert!(tick.wake().woke() >= tick.deadline());
        }
    });
}

#[test]
fn never_early_with_a_spin_tail_on_every_executor() {
    let driver = driver(SpinTail::Learned(HybridConfig::new().with_budget(1.0)));
    let sleeps = |n: u64| {
        let driver = driver.clone();
        (0..n).map(move |i| {
            let sleep = driver.sleep(Duration::from_micros(20 + (i * 7919) % 2_000));
            let deadline = sleep.deadline();
            async move {
                let wake = sleep.await;
                usize::from(Instant::now() < deadline || wake.woke() < deadline)
            }
        })
    };
    let broken: usize = block_on(join_all(sleeps(500))).into_iter().sum();
    assert_eq!(broken, 0, "futures::executor::block_on");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let broken: usize = rt.block_on(async {
        let handles: Vec<_> = sleeps(500).map(tokio::spawn).collect();
        join_all(handles)
            .await
            .into_iter()
            .map(Result::unwrap)
            .sum()
    });
    assert_eq!(broken, 0, "tokio multi-thread");
    let ex = smol::Executor::new();
    let broken: usize = smol::block_on(ex.run(async {
        let tasks: Vec<_> = sleeps(500).map(|f| ex.spawn(f)).collect();
        join_all(tasks).await.into_iter().sum()
    }));
    assert_eq!(broken, 0, "smol");
    assert_eq!(driver.pending(), 0);
}
