use std::time::{Duration, Instant};

use punctual::Sleeper;

use crate::bench::clock::{Clock, RealClock};
use crate::bench::method::{MethodSpec, Oses, SyncSpec, WaitMethod};
use crate::units::format_duration;

/// Windows' timetest.exe's "HR wait timer + busywait": the high-resolution timer (punctual's
/// native sleep) until a fixed margin before the deadline, then a busy wait on the clock.
/// timetest.exe does not say its margin; 1 ms is a Windows high-resolution timer's usual
/// worst lateness on an idle machine, where the learned margin of `hybrid` is the contrast.
const MARGIN: Duration = Duration::from_millis(1);

struct FixedMarginHybrid<C> {
    clock: C,
    native_until: Box<dyn FnMut(Instant)>,
    spin_once: Box<dyn FnMut()>,
}

impl<C: Clock> WaitMethod for FixedMarginHybrid<C> {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        if let Some(wake) = deadline.checked_sub(MARGIN) {
            if self.clock.now() < wake {
                (self.native_until)(wake);
            }
        }
        while self.clock.now() < deadline {
            (self.spin_once)();
        }
        None
    }

    fn note(&self) -> Option<String> {
        Some(format!(
            "hybrid-fixed: native sleep to {} before the deadline, then a busy wait",
            format_duration(MARGIN)
        ))
    }
}

pub const SPEC: MethodSpec = MethodSpec {
    name: "hybrid-fixed",
    about: "high-resolution timer to 1 ms before the deadline, then a busy wait (timetest.exe's HR wait timer + busywait)",
    ours: false,
    runs_on: Oses::WINDOWS,
    os_primitive_on: Oses::WINDOWS,
    never_early_on: Oses::WINDOWS,
    sync: Some(SyncSpec {
        create: || {
            let mut native = Sleeper::native();
            Ok(Box::new(FixedMarginHybrid {
                clock: RealClock,
                native_until: Box::new(move |wake| {
                    native.sleep_until(wake);
                }),
                spin_once: Box::new(std::hint::spin_loop),
            }))
        },
    }),
    scale: None,
};

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::bench::clock::MockClock;

    /// The mock's native sleep wakes 300 us late and each turn of the spin costs 1 us: the
    /// native part is asked for the margin before the deadline, the spin ends on the first
    /// reading at the deadline, and a wait inside the margin is all spin.
    #[test]
    fn sleeps_natively_to_the_margin_then_spins_to_the_deadline() {
        let clock = MockClock::new();
        let asked = Rc::new(RefCell::new(Vec::new()));
        let spins = Rc::new(RefCell::new(0u64));
        let (sleeper, seen) = (clock.clone(), Rc::clone(&asked));
        let (spinner, turns) = (clock.clone(), Rc::clone(&spins));
        let mut method = FixedMarginHybrid {
            clock: clock.clone(),
            native_until: Box::new(move |wake| {
                seen.borrow_mut().push(wake);
                sleeper.advance_to(wake + Duration::from_micros(300), Duration::ZERO);
            }),
            spin_once: Box::new(move || {
                spinner.advance_to(spinner.now() + Duration::from_micros(1), Duration::ZERO);
                *turns.borrow_mut() += 1;
            }),
        };
        let deadline = clock.now() + Duration::from_millis(10);
        method.wait_until(deadline);
        assert_eq!(*asked.borrow(), [deadline - MARGIN]);
        assert_eq!(clock.now(), deadline);
        assert_eq!(*spins.borrow(), 700);

        let short = clock.now() + Duration::from_micros(500);
        method.wait_until(short);
        assert_eq!(
            asked.borrow().len(),
            1,
            "a wait inside the margin is all spin"
        );
        assert_eq!(clock.now(), short);
        assert_eq!(*spins.borrow(), 1_200);
    }
}
