//! Timers that fall due densely, which the default driver gathers (`future/pace.rs`): every
//! one still completes, none early, and a sleep registered while the driver gathers is
//! fired too. Invariants only: how late the gathered timers are is the benchmarks' business.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};

/// `n` timers with deadlines spread evenly over `spread`, one current-thread tokio task
/// each: every one completes at or after its deadline; returns how many completed.
fn dense_stream(driver: &Driver, n: usize, spread: Duration) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let completed = Arc::new(AtomicUsize::new(0));
    // Room to register every timer first (a timer polled after its deadline completes at
    // once, registering nothing, which would still be no failure).
    let start = Instant::now() + Duration::from_millis(300);
    runtime.block_on(async {
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let deadline = start + spread * i as u32 / n as u32;
                let sleep = driver.sleep_until(deadline);
                let completed = Arc::clone(&completed);
                tokio::spawn(async move {
                    let wake = sleep.await;
                    assert!(Instant::now() >= deadline, "timer {i} woke early");
                    assert!(wake.woke() >= deadline && wake.deadline() == deadline);
                    completed.fetch_add(1, Relaxed);
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a timer task");
        }
    });
    completed.load(Relaxed)
}

#[test]
fn a_dense_stream_completes_every_timer_and_none_early() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    // 2,000 deadlines a millisecond: dense enough for every wake-up to gather.
    assert_eq!(
        dense_stream(&driver, 20_000, Duration::from_millis(10)),
        20_000
    );
    assert_eq!(driver.pending(), 0);
    assert!(driver.stats().wakes <= 20_000, "no timer fired twice");
}

/// While the stream runs, another thread keeps registering a short sleep of its own: the
/// driver may be gathering, when a registration does not interrupt its wait, so each must
/// be fired at the gathering's end. A lost one would hang this thread (hence the limit).
#[test]
fn a_sleep_registered_while_the_driver_gathers_is_fired() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let prober = {
        let driver = driver.clone();
        std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_millis(60);
            let mut probes = 0;
            while Instant::now() < until {
                let deadline = Instant::now() + Duration::from_micros(30);
                let wake = futures::executor::block_on(driver.sleep_until(deadline));
                assert!(wake.woke() >= deadline && Instant::now() >= deadline);
                probes += 1;
            }
            probes
        })
    };
    assert_eq!(
        dense_stream(&driver, 40_000, Duration::from_millis(40)),
        40_000
    );
    let give_up = Instant::now() + Duration::from_secs(30);
    while !prober.is_finished() {
        assert!(Instant::now() < give_up, "a probe's sleep was never fired");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(prober.join().expect("the prober") > 0);
    assert_eq!(driver.pending(), 0);
}
