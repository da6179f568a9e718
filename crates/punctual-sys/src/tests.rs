use std::sync::Arc;
use std::thread;

use super::*;

/// What the driver and the port rely on from every waiter: timeouts that end (and are not
/// early once re-checked), and notifications that are never lost, made before or during a
/// wait.
pub(crate) fn check_waiter<W: Interruptible + 'static>() {
    let waiter = Arc::new(W::new().expect("a waiter"));
    for micros in [0, 1, 50, 500, 2_000] {
        let deadline = Instant::now() + Duration::from_micros(micros);
        while Instant::now() < deadline {
            waiter.wait(Some(deadline));
        }
    }
    waiter.notify();
    assert_eq!(
        waiter.wait(None),
        Woken::Other,
        "a notification made before the wait ends it"
    );
    let notifier = {
        let waiter = Arc::clone(&waiter);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            waiter.notify();
        })
    };
    let far = Instant::now() + Duration::from_secs(3600);
    while waiter.wait(Some(far)) != Woken::Other {}
    notifier.join().unwrap();
    assert!(Instant::now() < far);
    let soon = Instant::now() + Duration::from_millis(1);
    let mut timed_out = false;
    while Instant::now() < soon {
        timed_out |= waiter.wait(Some(soon)) == Woken::TimedOut;
    }
    assert!(timed_out, "a wait that runs its length says so");
}

#[test]
fn this_platforms_waiter_keeps_the_contract() {
    check_waiter::<sys::Waiter>();
}

/// The port's timer thread: a wait nobody cuts short ends at or after its deadline once
/// re-checked, and a ring from another thread ends a wait without one.
#[test]
fn times_out_at_or_after_the_deadline_unless_rung() {
    let bell = Arc::new(Waiter::new().unwrap());
    for micros in [1, 300, 2_000] {
        let deadline = Instant::now() + Duration::from_micros(micros);
        while Instant::now() < deadline {
            bell.wait(Some(deadline));
        }
        assert!(Instant::now() >= deadline);
    }
    bell.notify();
    bell.wait(None); // rung before: returns at once

    let ringer = Arc::clone(&bell);
    let handle = thread::spawn(move || ringer.notify());
    bell.wait(None);
    handle.join().unwrap();
}

#[test]
fn thread_cpu_time_grows_with_work() {
    let Some(before) = thread_cpu_time() else {
        return;
    };
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(30) {
        std::hint::spin_loop();
    }
    let after = thread_cpu_time().expect("the clock worked once");
    assert!(after > before, "{before:?} then {after:?}");
    let process = process_cpu_time().expect("a process clock where there is a thread clock");
    assert!(
        process >= after,
        "the process {process:?}, one of its threads {after:?}"
    );
}

#[test]
fn a_coarse_clock_moves_forward_and_says_its_grain() {
    let Some(clock) = coarse_clock() else {
        return;
    };
    let first = (clock.now)();
    thread::sleep(Duration::from_millis(30));
    assert!(
        (clock.now)() > first,
        "{} stood still for 30 ms",
        clock.name
    );
    if let Some(grain) = clock.resolution {
        assert!(grain > Duration::ZERO);
    }
}

/// What every native wait keeps: called again until the clock says so, it ends at or
/// after its deadline, short and long.
pub(crate) fn check_native_wait(wait_until: fn(Instant, Instant)) {
    for micros in [0, 1, 100, 1_500] {
        let deadline = Instant::now() + Duration::from_micros(micros);
        loop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            wait_until(deadline, now);
        }
        assert!(Instant::now() >= deadline);
    }
}

#[test]
fn native_wait_is_not_early_once_rechecked() {
    check_native_wait(wait_until);
    assert!(!native_timer().mechanism.is_empty());
}

#[test]
fn plain_sleep_returns_and_names_its_call() {
    // Win32 Sleep may end before a request under one tick (its docs say so): that it
    // returns is the whole contract.
    plain_sleep(0);
    plain_sleep(2);
    let expected = if cfg!(windows) {
        "Win32 Sleep()"
    } else {
        "std::thread::sleep"
    };
    assert_eq!(PLAIN_SLEEP, expected);
}

#[test]
fn stdio_files_are_duplicates_that_close_alone() {
    drop(raw_stdin().expect("a duplicate of stdin"));
    drop(raw_stdout().expect("a duplicate of stdout"));
    // Standard output itself is still open once the duplicate is closed.
    use std::io::Write;
    std::io::stdout().flush().unwrap();
}
