//! Deadline-bounded polling: success, the condition's own failure, and timeouts that never
//! pass for success.

use std::cell::Cell;
use std::time::{Duration, Instant};

use punctual::{poll_until, Deadline, PollError, Poller};

#[derive(Debug, PartialEq)]
enum Mailbox {
    Wedged,
}

impl std::fmt::Display for Mailbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the mailbox took the command and wedged")
    }
}

#[test]
fn returns_the_value_once_the_condition_holds() {
    let polls = Cell::new(0);
    let result = poll_until(
        Deadline::after(Duration::from_secs(5)),
        Duration::from_micros(100),
        || {
            polls.set(polls.get() + 1);
            Ok::<_, Mailbox>((polls.get() == 4).then_some("ready"))
        },
    );
    assert_eq!(result, Ok("ready"));
    assert_eq!(polls.get(), 4);
}

#[test]
fn the_condition_ends_the_wait_with_its_own_error() {
    let result: Result<(), _> = poll_until(
        Deadline::after(Duration::from_secs(5)),
        Duration::from_millis(1),
        || Err(Mailbox::Wedged),
    );
    assert_eq!(result, Err(PollError::Failed(Mailbox::Wedged)));
    assert_eq!(
        result.unwrap_err().to_string(),
        "the mailbox took the command and wedged"
    );
}

#[test]
fn a_timeout_is_an_error_within_the_deadline_plus_one_step() {
    let budget = Duration::from_millis(40);
    let step = Duration::from_millis(300);
    let hooks = Cell::new(0u64);
    let start = Instant::now();
    let deadline = Deadline::after(budget);
    let result = Poller::new(deadline)
        .step(step)
        .before_sleep(|| hooks.set(hooks.get() + 1))
        .until(|| Ok::<Option<()>, Mailbox>(None));
    let took = start.elapsed();
    let Err(PollError::TimedOut { elapsed, polls }) = result else {
        panic!("not a timeout: {result:?}")
    };
    // `elapsed` counts from the first check, a little after the deadline was set: what
    // says the timeout came no sooner than the deadline is the clock after the return.
    assert!(deadline.has_passed(), "gave up before the deadline");
    assert!(elapsed <= took, "{elapsed:?} elapsed in {took:?}");
    assert!(
        took < budget + step,
        "took {took:?}, more than the deadline plus one step"
    );
    // One check at the start, one at the deadline (the step was longer than the budget).
    assert_eq!(polls, 2);
    assert_eq!(hooks.get(), polls - 1, "the hook runs before every sleep");
}

#[test]
fn small_steps_poll_until_the_deadline() {
    let start = Instant::now();
    let budget = Duration::from_millis(30);
    let deadline = Deadline::after(budget);
    let result = poll_until(deadline, Duration::from_millis(2), || {
        Ok::<Option<()>, Mailbox>(None)
    });
    let Err(PollError::TimedOut { elapsed, polls }) = result else {
        panic!("not a timeout")
    };
    // As above: the clock after the return, not `elapsed` (counted from the first check).
    assert!(deadline.has_passed() && start.elapsed() >= budget);
    assert!(elapsed <= start.elapsed());
    assert!(
        (2..=17).contains(&polls),
        "{polls} polls of a 2 ms step in 30 ms"
    );
    assert_eq!(
        PollError::<Mailbox>::TimedOut {
            elapsed: Duration::from_millis(30),
            polls: 16
        }
        .to_string(),
        "timed out after 30ms and 16 polls"
    );
}

#[test]
fn a_past_deadline_checks_once_then_times_out() {
    let result = poll_until(Deadline::at(Instant::now()), Duration::from_secs(1), || {
        Ok::<Option<()>, Mailbox>(None)
    });
    assert!(matches!(result, Err(PollError::TimedOut { polls: 1, .. })));
    let met = poll_until(Deadline::at(Instant::now()), Duration::from_secs(1), || {
        Ok::<_, Mailbox>(Some(7))
    });
    assert_eq!(met, Ok(7), "a condition met on the last check is a success");
}

#[test]
fn a_deadline_that_never_passes_and_a_zero_step_still_poll() {
    let polls = Cell::new(0);
    let result = poll_until(Deadline::never(), Duration::ZERO, || {
        polls.set(polls.get() + 1);
        Ok::<_, Mailbox>((polls.get() == 1000).then_some(()))
    });
    assert_eq!(result, Ok(()));
}

#[test]
fn deadlines_read_the_clock() {
    let deadline = Deadline::after(Duration::from_millis(20));
    assert!(!deadline.has_passed());
    assert!(deadline.remaining() <= Duration::from_millis(20));
    punctual::sleep_until(deadline.instant().unwrap());
    assert!(deadline.has_passed());
    assert_eq!(deadline.remaining(), Duration::ZERO);
    let never = Deadline::after(Duration::MAX);
    assert!(never.is_never() && !never.has_passed());
    assert_eq!(never.remaining(), Duration::MAX);
    assert_eq!(never, Deadline::never());
}
