//! What the measuring loop reads: the wall clock, the thread's CPU clock, and a way to burn
//! time between waits. Real runs use the machine's; `--mock-timer` runs use a virtual clock,
//! so tests get the same output every time.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::sys::{self, Platform};

pub trait Clock {
    fn now(&self) -> Instant;
    fn thread_cpu(&self) -> Duration;
    /// Busy work between waits (the scrambled phase).
    fn busy(&self, duration: Duration);
}

/// The machine's clocks.
pub struct RealClock;

impl Clock for RealClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn thread_cpu(&self) -> Duration {
        sys::Os::thread_cpu_time().unwrap_or_default()
    }

    fn busy(&self, duration: Duration) {
        let end = Instant::now() + duration;
        while Instant::now() < end {
            std::hint::spin_loop();
        }
    }
}

/// Virtual time shared by one mock method and its measuring loop.
#[derive(Clone)]
pub struct MockClock {
    base: Instant,
    elapsed_ns: Rc<Cell<u64>>,
    cpu_ns: Rc<Cell<u64>>,
}

impl MockClock {
    pub fn new() -> MockClock {
        MockClock {
            base: Instant::now(),
            elapsed_ns: Rc::default(),
            cpu_ns: Rc::default(),
        }
    }

    /// Moves virtual time to `at` (never backwards) and charges `cpu` to the thread.
    pub fn advance_to(&self, at: Instant, cpu: Duration) -> Instant {
        let target = at.saturating_duration_since(self.base).as_nanos() as u64;
        self.elapsed_ns.set(self.elapsed_ns.get().max(target));
        self.cpu_ns.set(self.cpu_ns.get() + cpu.as_nanos() as u64);
        self.now()
    }
}

impl Clock for MockClock {
    fn now(&self) -> Instant {
        self.base + Duration::from_nanos(self.elapsed_ns.get())
    }

    fn thread_cpu(&self) -> Duration {
        Duration::from_nanos(self.cpu_ns.get())
    }

    fn busy(&self, duration: Duration) {
        self.advance_to(self.now() + duration, duration);
    }
}
