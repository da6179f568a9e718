use std::time::Instant;

use crate::bench::clock::{Clock, RealClock};
use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};
use crate::sys::waits::linux::sched_yield;

/// A spin that gives the CPU away on every turn (`sched_yield`), what spin_sleep's default
/// spin does, until the clock reaches the deadline.
struct YieldSpin<C> {
    clock: C,
    yield_now: Box<dyn FnMut()>,
}

impl<C: Clock> WaitMethod for YieldSpin<C> {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        while self.clock.now() < deadline {
            (self.yield_now)();
        }
        None
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "sched_yield",
    about: "a spin calling sched_yield until the deadline (spin_sleep's default spin)",
    ours: false,
    runs_on: Oses::LINUX,
    os_primitive_on: Oses::LINUX,
    never_early_on: Oses::LINUX,
    sync: Some(SyncSpec {
        create: || {
            Ok(Box::new(YieldSpin {
                clock: RealClock,
                yield_now: Box::new(sched_yield),
            }))
        },
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::Duration;

    use super::*;
    use crate::bench::clock::MockClock;

    /// Each yield costs the mock 7 us: the spin stops on the first reading at or after the
    /// deadline, and yields only while it is ahead.
    #[test]
    fn yields_until_the_deadline_and_not_after() {
        let clock = MockClock::new();
        let yields = Rc::new(Cell::new(0));
        let (ticking, counted) = (clock.clone(), Rc::clone(&yields));
        let mut method = YieldSpin {
            clock: clock.clone(),
            yield_now: Box::new(move || {
                ticking.advance_to(ticking.now() + Duration::from_micros(7), Duration::ZERO);
                counted.set(counted.get() + 1);
            }),
        };
        let deadline = clock.now() + Duration::from_micros(100);
        method.wait_until(deadline);
        assert!(clock.now() >= deadline);
        assert_eq!(yields.get(), 15);
        method.wait_until(deadline);
        assert_eq!(yields.get(), 15, "a past deadline yields no more");
    }
}
