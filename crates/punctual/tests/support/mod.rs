//! Helpers shared by the async tests.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// A waker that counts its wakes.
#[derive(Default)]
pub struct WakeCount(AtomicUsize);

impl WakeCount {
    pub fn new() -> Arc<WakeCount> {
        Arc::new(WakeCount::default())
    }

    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls `future` once with `waker`.
pub fn poll_once<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(waker))
}

/// Waits (polling the condition every millisecond) until `done` holds; false after `limit`.
pub fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let give_up = Instant::now() + limit;
    while !done() {
        if Instant::now() > give_up {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}
