//! The executor's floor at N tasks: the same tasks, in the same order as their timers would
//! fire, woken all at once from another thread with no timer at all. Its time per task is
//! the least any timer that wakes tasks from a thread of its own could cost this executor
//! here, and its inverse the most tasks per millisecond it can complete: when the deadlines
//! ask for about as many, a backlog is the executor's, whatever the timer.

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::{Arc, OnceLock};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::SPREAD;
use crate::rng::Rng;

/// What the tasks share: a gate per task, opened by the waker it left.
struct Gates {
    wakers: Box<[OnceLock<Waker>]>,
    registered: AtomicUsize,
    left: AtomicUsize,
    all_done: Notify,
}

/// Time per task to complete `n` tasks woken at once, in the order of deadlines drawn from
/// `seed` as a round draws them.
pub async fn executor_floor(n: usize, seed: u64) -> Duration {
    let mut rng = Rng::new(seed);
    let spread_ns = SPREAD.as_nanos() as u64;
    let mut order: Vec<(u64, usize)> = (0..n).map(|i| (rng.below(spread_ns), i)).collect();
    order.sort_unstable();
    let gates = Arc::new(Gates {
        wakers: (0..n).map(|_| OnceLock::new()).collect(),
        registered: AtomicUsize::new(0),
        left: AtomicUsize::new(n),
        all_done: Notify::new(),
    });
    for i in 0..n {
        let gates = Arc::clone(&gates);
        tokio::spawn(async move {
            let mut waited = false;
            poll_fn(|cx| {
                if waited {
                    return Poll::Ready(());
                }
                waited = true;
                let _ = gates.wakers[i].set(cx.waker().clone());
                gates.registered.fetch_add(1, Relaxed);
                Poll::Pending
            })
            .await;
            if gates.left.fetch_sub(1, AcqRel) == 1 {
                gates.all_done.notify_one();
            }
        });
    }
    while gates.registered.load(Relaxed) < n {
        tokio::task::yield_now().await;
    }
    let wakers: Vec<Waker> = order
        .iter()
        .filter_map(|&(_, i)| gates.wakers[i].get().cloned())
        .collect();
    let start = Instant::now();
    let opener = std::thread::spawn(move || wakers.into_iter().for_each(Waker::wake));
    gates.all_done.notified().await;
    let elapsed = start.elapsed();
    let _ = opener.join();
    elapsed / n.max(1) as u32
}
