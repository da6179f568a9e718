//! The async promise: no `Sleep` completes before its deadline, on any executor, with or
//! without a spin tail, whatever mix of lengths is pending at once.

mod support;

use std::time::{Duration, Instant};

use futures::future::join_all;
use punctual::future::{self, Driver, DriverConfig, SpinTail};
use punctual::HybridConfig;
use punctual_test_support::xorshift;

/// Sleeps per executor, all pending at once.
const TASKS: usize = 2_000;

/// Lengths in nanoseconds; negative ones are deadlines already past when made.
const LENGTHS_NS: [i64; 9] = [
    -1_000_000, 0, 1, 1_000, 20_000, 100_000, 700_000, 2_000_000, 5_000_000,
];

/// One sleep of the mix: waits, then returns how many promises it broke (0 or 1).
async fn one_sleep(driver: Option<Driver>, seed: u64) -> usize {
    let mut x = seed | 1;
    let len = LENGTHS_NS[(xorshift(&mut x) % LENGTHS_NS.len() as u64) as usize];
    let start = Instant::now();
    let deadline = if len < 0 {
        start - Duration::from_nanos(len.unsigned_abs())
    } else {
        start + Duration::from_nanos(len as u64)
    };
    let by_duration = len >= 0 && x % 2 == 0;
    let sleep = match (&driver, by_duration) {
        (None, true) => future::sleep(Duration::from_nanos(len as u64)),
        (None, false) => future::sleep_until(deadline),
        (Some(d), true) => d.sleep(Duration::from_nanos(len as u64)),
        (Some(d), false) => d.sleep_until(deadline),
    };
    let promised = sleep.deadline();
    let wake = sleep.await;
    let now = Instant::now();
    let broken = now < promised
        || wake.woke() < wake.deadline()
        || wake.deadline() != promised
        || promised < deadline
        || (!by_duration && promised != deadline);
    usize::from(broken)
}

fn mix(driver: Option<Driver>) -> Vec<impl std::future::Future<Output = usize> + Send> {
    (0..TASKS as u64)
        .map(|i| one_sleep(driver.clone(), 0x9E37_79B9_7F4A_7C15 ^ (i * 0x1000_0001)))
        .collect()
}

fn assert_none_early(executor: &str, broken: usize) {
    assert_eq!(
        broken, 0,
        "{executor}: {broken} of {TASKS} sleeps ended early"
    );
}

#[test]
fn never_early_on_tokio_current_thread() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let broken: usize = rt.block_on(async {
        let tasks: Vec<_> = mix(None).into_iter().map(tokio::spawn).collect();
        join_all(tasks).await.into_iter().map(Result::unwrap).sum()
    });
    assert_none_early("tokio current-thread", broken);
}

#[test]
fn never_early_on_tokio_multi_thread() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let broken: usize = rt.block_on(async {
        let tasks: Vec<_> = mix(None).into_iter().map(tokio::spawn).collect();
        join_all(tasks).await.into_iter().map(Result::unwrap).sum()
    });
    assert_none_early("tokio multi-thread", broken);
}

#[test]
fn never_early_on_smol() {
    let ex = smol::Executor::new();
    let broken: usize = smol::block_on(ex.run(async {
        let tasks: Vec<_> = mix(None).into_iter().map(|f| ex.spawn(f)).collect();
        join_all(tasks).await.into_iter().sum()
    }));
    assert_none_early("smol", broken);
}

#[test]
fn never_early_on_futures_executors() {
    let broken: usize = futures::executor::block_on(join_all(mix(None)))
        .into_iter()
        .sum();
    assert_none_early("futures::executor::block_on", broken);

    let pool = futures::executor::ThreadPool::builder()
        .pool_size(2)
        .create()
        .unwrap();
    let handles: Vec<_> = mix(None)
        .into_iter()
        .map(|f| {
            let (remote, handle) = futures::FutureExt::remote_handle(f);
            pool.spawn_ok(remote);
            handle
        })
        .collect();
    let broken: usize = futures::executor::block_on(join_all(handles))
        .into_iter()
        .sum();
    assert_none_early("futures ThreadPool", broken);
}

#[test]
fn never_early_with_a_spin_tail() {
    for tail in [
        SpinTail::Fixed(Duration::from_micros(30)),
        SpinTail::Learned(HybridConfig::new()),
    ] {
        let driver = Driver::new(DriverConfig::new().with_spin_tail(tail)).unwrap();
        let broken: usize = futures::executor::block_on(join_all(mix(Some(driver.clone()))))
            .into_iter()
            .sum();
        assert_none_early(&format!("{tail:?}"), broken);
        assert_eq!(driver.pending(), 0);
    }
}

#[test]
fn the_global_driver_says_how_it_waits() {
    let info = Driver::global().timer_info();
    println!("global driver: {info}");
    assert!(!info.mechanism.is_empty());
    // Where the OS has timer slack (Linux), the driver thread runs with 1 ns of it, or says
    // why not.
    if let Some(slack) = info.timer_slack {
        assert!(
            slack == Duration::from_nanos(1) || info.degraded.is_some(),
            "{info}"
        );
    }
    assert_eq!(Driver::global().config(), DriverConfig::new());
}

/// Twenty sleeps one after another on a fresh driver with `tail`; returns its counters.
fn sequential_sleeps(tail: SpinTail) -> punctual::future::DriverStats {
    let driver = Driver::new(DriverConfig::new().with_spin_tail(tail)).unwrap();
    futures::executor::block_on(async {
        for _ in 0..20 {
            let wake = driver.sleep(Duration::from_millis(2)).await;
            assert!(wake.woke() >= wake.deadline());
            if tail == SpinTail::None {
                assert_eq!(wake.spun(), Duration::ZERO);
            }
        }
    });
    driver.stats()
}

#[test]
fn the_spin_tail_does_what_its_config_says() {
    let native = sequential_sleeps(SpinTail::None);
    assert_eq!((native.spun, native.spin_time), (0, Duration::ZERO));
    assert_eq!(native.wakes, 20);
    assert!(native.fire_lateness_max * 20 >= native.fire_lateness_total);

    // Each sleep fired early is polled either within its margin (and spins) or past its
    // deadline (the margin fell short): block_on polls only when woken.
    let fixed = sequential_sleeps(SpinTail::Fixed(Duration::from_micros(200)));
    assert_eq!(fixed.spun + fixed.margin_overrun, 20, "{fixed:?}");
    assert_eq!(fixed.spun > 0, fixed.spin_time > Duration::ZERO);

    // A budget of zero allows no spin at all.
    let broke = sequential_sleeps(SpinTail::Learned(HybridConfig::new().with_budget(0.0)));
    assert_eq!(broke.spun, 0);
    assert!(broke.capped + broke.native_only >= 10, "{broke:?}");
}

#[test]
fn a_bad_spin_config_is_an_error() {
    let bad =
        DriverConfig::new().with_spin_tail(SpinTail::Learned(HybridConfig::new().with_budget(2.0)));
    assert_eq!(
        Driver::new(bad).unwrap_err(),
        punctual::Error::InvalidBudget(2.0)
    );
}
