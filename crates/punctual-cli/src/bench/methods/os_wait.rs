//! What most OS methods share: the time left read off the clock just before the call,
//! converted to the call's unit as a program would, and the call made with it. A failed
//! call is kept for the method's note rather than lost (a wait cannot return an error).

use std::io;
use std::time::{Duration, Instant};

use crate::bench::clock::Clock;
use crate::bench::method::WaitMethod;

/// One OS call for the time left, in the call's unit `T`.
pub struct TimeLeftWait<T> {
    name: &'static str,
    clock: Box<dyn Clock>,
    convert: fn(Duration) -> T,
    wait: Box<dyn FnMut(T) -> io::Result<()>>,
    /// What the reader should know from the start (the timer slack it sleeps with).
    setting: Option<String>,
    failures: u64,
    last_failure: Option<io::Error>,
}

impl<T> TimeLeftWait<T> {
    pub fn new(
        name: &'static str,
        clock: Box<dyn Clock>,
        convert: fn(Duration) -> T,
        wait: impl FnMut(T) -> io::Result<()> + 'static,
    ) -> TimeLeftWait<T> {
        TimeLeftWait {
            name,
            clock,
            convert,
            wait: Box::new(wait),
            setting: None,
            failures: 0,
            last_failure: None,
        }
    }

    pub fn with_setting(mut self, setting: String) -> TimeLeftWait<T> {
        self.setting = Some(setting);
        self
    }
}

impl<T> WaitMethod for TimeLeftWait<T> {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        let left = deadline.saturating_duration_since(self.clock.now());
        if let Err(e) = (self.wait)((self.convert)(left)) {
            self.failures += 1;
            self.last_failure = Some(e);
        }
        None
    }

    fn note(&self) -> Option<String> {
        let failed = self
            .last_failure
            .as_ref()
            .map(|e| format!("{} of its calls failed, the last with: {e}", self.failures));
        match (&self.setting, failed) {
            (None, None) => None,
            (Some(setting), None) => Some(format!("{}: {setting}", self.name)),
            (None, Some(failed)) => Some(format!("{}: {failed}", self.name)),
            (Some(setting), Some(failed)) => Some(format!("{}: {setting}; {failed}", self.name)),
        }
    }
}

#[cfg(test)]
pub mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::bench::clock::MockClock;
    use crate::rng::Rng;

    /// Drives `make`'s method on a mock clock whose OS call sleeps exactly what it was
    /// asked (`to_duration` of its argument), over random deadlines from 0 to 30 ms ahead:
    /// every wake must be at or after its deadline, and the calls are returned.
    pub fn never_early_on_the_mock<T: Copy + 'static>(
        convert: fn(Duration) -> T,
        to_duration: fn(T) -> Duration,
    ) -> Vec<T> {
        let clock = MockClock::new();
        let calls = Rc::new(RefCell::new(Vec::new()));
        let (sleeper, seen) = (clock.clone(), Rc::clone(&calls));
        let mut method = TimeLeftWait::new("mock", Box::new(clock.clone()), convert, move |t| {
            seen.borrow_mut().push(t);
            sleeper.advance_to(sleeper.now() + to_duration(t), Duration::ZERO);
            Ok(())
        });
        let mut rng = Rng::new(18);
        for _ in 0..2_000 {
            let deadline = clock.now() + Duration::from_nanos(rng.below(30_000_000));
            method.wait_until(deadline);
            assert!(clock.now() >= deadline, "woke early");
        }
        let calls = calls.borrow().clone();
        calls
    }

    #[test]
    fn a_failed_call_is_counted_and_named_in_the_note() {
        let mut method = TimeLeftWait::new(
            "failing",
            Box::new(MockClock::new()),
            |left| left,
            |_| Err(io::Error::other("no such timer")),
        )
        .with_setting("timer slack 50 us".into());
        method.wait_until(Instant::now());
        method.wait_until(Instant::now());
        assert_eq!(
            method.note().unwrap(),
            "failing: timer slack 50 us; 2 of its calls failed, the last with: no such timer"
        );
    }
}
