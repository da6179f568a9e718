//! Many sleeps due at the same instant, as when a whole fleet of tasks waits for one
//! broadcast deadline: the driver fires its timers in batches, and must not split timers
//! due at the same nanosecond between two of them (a sleep whose timer fired would then
//! take a freed, perhaps reused, slot for its own: a panic or a lost wake).

use std::time::{Duration, Instant};

use futures::future::join_all;
use punctual::future::{Driver, DriverConfig};

/// Far more than one batch of the driver (64), so most ties straddle a batch boundary.
const TASKS: usize = 20_000;

/// Liveness only: every task must be woken; a lost wake would otherwise hang the test.
const GIVE_UP: Duration = Duration::from_secs(30);

fn run_on_tokio(rt: tokio::runtime::Runtime) {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    for round in 0..3u64 {
        let deadline = Instant::now() + Duration::from_millis(20);
        let early = rt.block_on(async {
            let tasks: Vec<_> = (0..TASKS)
                .map(|_| {
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
        // A task first polled after the deadline completes without its timer firing, so
        // fewer may fire; none fires twice.
        let stats = driver.stats();
        assert!(
            stats.wakes <= (round + 1) * TASKS as u64,
            "round {round}: {stats:?}"
        );
        assert_eq!(stats.waker_panics, 0);
    }
}

#[test]
fn a_shared_deadline_wakes_every_task_once_on_tokio_current_thread() {
    run_on_tokio(
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap(),
    );
}

#[test]
fn a_shared_deadline_wakes_every_task_once_on_tokio_multi_thread() {
    run_on_tokio(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap(),
    );
}
