use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Wake;

/// A waker that counts its wakes: `Waker::from(WakeCount::new())`, and `get` the count.
#[derive(Debug, Default)]
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
