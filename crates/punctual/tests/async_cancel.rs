//! Cancellation and reset: a dropped `Sleep` leaves nothing behind and wakes nobody; a reset
//! moves the deadline either way, in place.

mod support;

use std::mem::size_of;
use std::task::Waker;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig, Sleep};
use punctual_test_support::WakeCount;
use support::{poll_once, wait_for};

/// How many sleeps the drop test makes; Wine may ask for fewer with `PUNCTUAL_TEST_TIMERS`.
fn timers() -> usize {
    std::env::var("PUNCTUAL_TEST_TIMERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

#[test]
fn dropping_a_million_pending_sleeps_frees_them_and_none_wakes() {
    let n = timers();
    println!("{n} pending sleeps (PUNCTUAL_TEST_TIMERS)");
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let count = WakeCount::new();
    let waker = Waker::from(count.clone());
    let empty = driver.allocated_bytes();

    // Deadlines spread over 100 ms, far enough ahead that setting up cannot reach them.
    let first = Instant::now() + Duration::from_secs(3);
    let spread_ns = 100_000_000u64;
    let mut sleeps: Vec<Sleep> = (0..n as u64)
        .map(|i| driver.sleep_until(first + Duration::from_nanos(i * 7919 % spread_ns)))
        .collect();
    for sleep in &mut sleeps {
        assert!(poll_once(sleep, &waker).is_pending());
    }
    assert!(
        Instant::now() < first,
        "setting up {n} sleeps took over 3 s; try a smaller PUNCTUAL_TEST_TIMERS"
    );
    assert_eq!(driver.pending(), n);
    let full = driver.allocated_bytes();
    // A sleep's margin and class share 32 bits so that the future stays this small.
    if cfg!(target_pointer_width = "64") {
        assert!(size_of::<Sleep>() <= 32, "{} bytes", size_of::<Sleep>());
    }
    let per_timer = (full - empty) / n + size_of::<Sleep>();
    println!(
        "{per_timer} bytes per pending timer: {} in the driver + {} for the Sleep",
        (full - empty) / n,
        size_of::<Sleep>()
    );
    assert!(per_timer <= 128, "{per_timer} bytes per pending timer");

    drop(sleeps);
    // On a loaded machine the drop can outlast the first deadlines, and those sleeps fire
    // as they should while still pending; what must not happen is a wake once dropped.
    let dropped = Instant::now();
    let woken_while_dropping = count.get();
    let fired_while_dropping = driver.stats().wakes;
    if dropped < first {
        assert_eq!(woken_while_dropping, 0, "a sleep woke before its deadline");
    } else {
        println!(
            "the drop ended {:?} past the first deadline: {woken_while_dropping} sleeps fired before they were dropped",
            dropped - first
        );
    }
    assert_eq!(driver.pending(), 0);
    assert!(
        driver.allocated_bytes() <= empty.max(4096),
        "storage kept after the drop: {} bytes (was {full})",
        driver.allocated_bytes()
    );

    // Past every deadline: a timer left behind would have woken its waker by now.
    let last = first + Duration::from_nanos(spread_ns);
    std::thread::sleep(last.saturating_duration_since(Instant::now()) + Duration::from_millis(50));
    assert_eq!(
        count.get(),
        woken_while_dropping,
        "a dropped sleep was woken"
    );
    assert_eq!(driver.stats().wakes, fired_while_dropping);
    assert_eq!(driver.stats().max_pending, n);
}

#[test]
fn a_later_reset_moves_the_wake_and_keeps_the_waker() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let count = WakeCount::new();
    let waker = Waker::from(count.clone());
    // Margins of hundreds of milliseconds: pending at the first poll, and not yet due at
    // the checks, on a loaded machine too.
    let mut sleep = driver.sleep(Duration::from_millis(100));
    assert!(poll_once(&mut sleep, &waker).is_pending());
    let later = Instant::now() + Duration::from_millis(1000);
    sleep.reset(later);
    assert_eq!(sleep.deadline(), later);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(count.get(), 0, "woken at the old deadline");
    assert_eq!(driver.pending(), 1);
    assert!(poll_once(&mut sleep, &waker).is_pending());
    assert!(wait_for(Duration::from_secs(10), || count.get() > 0));
    assert!(Instant::now() >= later);
    let wake = match poll_once(&mut sleep, &waker) {
        std::task::Poll::Ready(wake) => wake,
        std::task::Poll::Pending => panic!("woken, yet not due"),
    };
    assert_eq!(wake.deadline(), later);
    assert_eq!(driver.pending(), 0);
}

#[test]
fn an_earlier_reset_interrupts_the_driver() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let count = WakeCount::new();
    let waker = Waker::from(count.clone());
    let mut sleep = driver.sleep(Duration::from_secs(3600));
    assert!(poll_once(&mut sleep, &waker).is_pending());
    // Let the driver settle into its hour-long wait before the reset.
    std::thread::sleep(Duration::from_millis(20));
    let sooner = Instant::now() + Duration::from_millis(2);
    sleep.reset(sooner);
    assert!(
        wait_for(Duration::from_secs(10), || count.get() > 0),
        "the driver slept on towards the old deadline"
    );
    let wake = futures::executor::block_on(&mut sleep);
    assert_eq!(wake.deadline(), sooner);
    assert!(wake.woke() >= sooner);
    assert!(driver.stats().interrupts >= 1);
}

#[test]
fn a_reset_to_the_past_completes_and_a_completed_sleep_can_go_again() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let mut sleep = driver.sleep(Duration::from_secs(3600));
    let count = WakeCount::new();
    assert!(poll_once(&mut sleep, &Waker::from(count.clone())).is_pending());
    let past = Instant::now() - Duration::from_millis(1);
    sleep.reset(past);
    assert!(sleep.is_elapsed());
    assert_eq!(futures::executor::block_on(&mut sleep).deadline(), past);
    let again = Instant::now() + Duration::from_micros(500);
    sleep.reset(again);
    assert!(!sleep.is_elapsed());
    let wake = futures::executor::block_on(&mut sleep);
    assert_eq!(wake.deadline(), again);
    assert!(Instant::now() >= again);
    assert_eq!(driver.pending(), 0);
}

#[test]
fn resetting_pending_sleeps_allocates_nothing() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let waker = Waker::from(WakeCount::new());
    let base = Instant::now() + Duration::from_secs(3600);
    let mut sleeps: Vec<Sleep> = (0..10_000u64)
        .map(|i| driver.sleep_until(base + Duration::from_micros(i)))
        .collect();
    for sleep in &mut sleeps {
        assert!(poll_once(sleep, &waker).is_pending());
    }
    let bytes = driver.allocated_bytes();
    for round in 0..5u64 {
        for (i, sleep) in sleeps.iter_mut().enumerate() {
            let shift = (i as u64 * 7919 + round * 104_729) % 1_000_000;
            sleep.reset(base + Duration::from_micros(shift));
        }
        assert_eq!(driver.allocated_bytes(), bytes);
        assert_eq!(driver.pending(), sleeps.len());
    }
}

#[test]
fn a_sleep_that_never_ends_costs_the_driver_nothing() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let count = WakeCount::new();
    let waker = Waker::from(count.clone());
    let mut forever = driver.sleep(Duration::MAX);
    assert!(forever.deadline() > Instant::now() + Duration::from_secs(3600 * 24 * 365));
    assert!(poll_once(&mut forever, &waker).is_pending());
    assert!(!forever.is_elapsed());
    assert_eq!(driver.pending(), 0);
    // Far past what the driver's nanoseconds count: the same.
    let mut far = driver.sleep(Duration::from_secs(600 * 365 * 24 * 3600));
    assert!(poll_once(&mut far, &waker).is_pending());
    assert_eq!(driver.pending(), 0);
    // And back to a near deadline.
    far.reset(Instant::now() + Duration::from_micros(100));
    futures::executor::block_on(&mut far);
    assert_eq!(count.get(), 0);
}

/// The driver frees a fired timer's slot at once and hands it to the next registration; the
/// sleep it fired must then leave that slot alone, whatever it does next.
#[test]
fn a_fired_sleep_leaves_its_old_slot_to_the_next_timer() {
    let driver = Driver::new(DriverConfig::new()).unwrap();
    let fired = WakeCount::new();
    let mut a = driver.sleep(Duration::from_millis(50));
    let mut b = driver.sleep(Duration::from_millis(51));
    assert!(poll_once(&mut a, &Waker::from(fired.clone())).is_pending());
    assert!(poll_once(&mut b, &Waker::from(fired.clone())).is_pending());
    assert!(wait_for(Duration::from_secs(10), || fired.get() == 2));
    assert_eq!(driver.pending(), 0);

    // Both slots are free now: the next registrations take them.
    let later = WakeCount::new();
    let mut c = driver.sleep(Duration::from_millis(500));
    let mut d = driver.sleep(Duration::from_millis(500));
    assert!(poll_once(&mut c, &Waker::from(later.clone())).is_pending());
    assert!(poll_once(&mut d, &Waker::from(later.clone())).is_pending());
    assert_eq!(driver.pending(), 2);

    // The fired sleeps, dropped or reset, touch neither.
    drop(a);
    b.reset(Instant::now() + Duration::from_millis(5));
    assert_eq!(
        driver.pending(),
        2,
        "a fired sleep took another's timer out"
    );
    let wake = futures::executor::block_on(&mut b);
    assert!(wake.woke() >= wake.deadline());
    assert_eq!(driver.pending(), 2);
    assert_eq!(later.get(), 0);

    assert!(wait_for(Duration::from_secs(10), || later.get() == 2));
    for sleep in [&mut c, &mut d] {
        assert!(poll_once(sleep, &Waker::from(later.clone())).is_ready());
    }
    assert_eq!(driver.pending(), 0);
    assert_eq!(driver.stats().wakes, 5);
}
