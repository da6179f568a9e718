//! Signals delivered to a sleeping thread must not shorten its sleep: the native wait
//! resumes after `EINTR` on its absolute deadline.
#![cfg(unix)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use punctual::{Sleeper, Strategy, Ticker};

static HANDLED: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    HANDLED.fetch_add(1, Ordering::Relaxed);
}

/// SIGUSR1 with a handler and without SA_RESTART, so every delivery interrupts the sleep.
fn install_handler() {
    // SAFETY: a zeroed sigaction is valid; the handler only touches an atomic, which is
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = 0;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()),
            0
        );
    }
}

#[test]
fn signals_during_sleeps_do_not_shorten_them() {
    install_handler();
    let done = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let sleeper_done = done.clone();
    let sleeper = std::thread::spawn(move || {
        // SAFETY: pthread_self has no preconditions.
        tx.send(unsafe { libc::pthread_self() } as usize).unwrap();
        let mut early = Vec::new();
        let mut sleeps = 0;
        for round in 0..60 {
            for strategy in [Strategy::Native, Strategy::Hybrid] {
                let mut sleeper = Sleeper::new(strategy);
                let length = Duration::from_micros(500 + 250 * (round % 8));
                let start = Instant::now();
                let wake = sleeper.sleep(length);
                let slept = start.elapsed();
                sleeps += 1;
                if slept < length || wake.woke() < wake.deadline() {
                    early.push((strategy, length, slept));
                }
            }
            let mut ticker = Ticker::new(Duration::from_micros(700)).unwrap();
            for _ in 0..3 {
                let tick = ticker.tick();
                if tick.wake().woke() < tick.deadline() || Instant::now() < tick.deadline() {
                    early.push((Strategy::Hybrid, Duration::ZERO, Duration::ZERO));
                }
            }
        }
        sleeper_done.store(true, Ordering::Release);
        (sleeps, early)
    });
    let thread = rx.recv().unwrap() as libc::pthread_t;
    let before = HANDLED.load(Ordering::Relaxed);
    while !done.load(Ordering::Acquire) {
        // SAFETY: the thread is alive until it sets `done`, which is checked just before.
        unsafe { libc::pthread_kill(thread, libc::SIGUSR1) };
        std::thread::sleep(Duration::from_micros(150));
    }
    let (sleeps, early) = sleeper.join().unwrap();
    let handled = HANDLED.load(Ordering::Relaxed) - before;
    println!("{sleeps} sleeps, {handled} signals handled");
    assert!(early.is_empty(), "sleeps cut short by signals: {early:?}");
    assert!(
        handled > sleeps,
        "too few signals arrived ({handled}) to test anything"
    );
}
