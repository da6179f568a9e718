//! Why protocol 2's timer thread waits for itself rather than through
//! `punctual::future::Driver`: how late the thread that writes the answers wakes, on a
//! 1 ms sleep, when it
//!
//! - waits on a `Sleep` of a driver, which wakes it from the driver's own thread (`unpark`);
//! - waits on `punctual_sys::Waiter` with a deadline, as the port's timer thread does
//!   (interruptible by new requests; the async driver's own wait, a futex on Linux);
//! - sleeps with `clock_nanosleep` (punctual's native sleep), the floor.
//!
//! ```sh
//! cargo run --release -p punctual-port --example timer_thread [-- rt]
//! ```
//!
//! With `rt` the waiting thread runs SCHED_FIFO 1 (the driver thread inherits it). Lateness
//! in microseconds. A measurement for a quiet machine; nothing here is asserted.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};
use punctual::Sleeper;

const SLEEPS: usize = 2_000;
const SLEEP: Duration = Duration::from_millis(1);

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

fn main() {
    let realtime = std::env::args().nth(1).as_deref() == Some("rt");
    let waiter = thread::spawn(move || {
        if realtime {
            if let Err(e) = punctual::rt::set_realtime_priority(1) {
                eprintln!("running without real time: {e}");
            }
        }
        let _ = punctual::rt::set_timer_slack(Duration::from_nanos(1));
        println!("lateness in us over {SLEEPS} sleeps of {SLEEP:?}: p50 / p90 / p99 / max");
        report("driver, then unpark", through_driver());
        report("waiter with deadline", through_waiter());
        report("clock_nanosleep", natively());
    });
    waiter.join().expect("the measuring thread");
}

fn through_driver() -> Vec<Duration> {
    let driver = match Driver::new(DriverConfig::new()) {
        Ok(driver) => driver,
        Err(e) => panic!("no driver: {e}"),
    };
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    measure(|deadline| {
        let mut sleep = driver.sleep_until(deadline);
        while Pin::new(&mut sleep).poll(&mut cx).is_pending() {
            thread::park();
        }
    })
}

fn through_waiter() -> Vec<Duration> {
    let waiter = match punctual_sys::Waiter::new() {
        Ok(waiter) => waiter,
        Err(e) => panic!("no waiter: {e}"),
    };
    measure(|deadline| {
        while Instant::now() < deadline {
            waiter.wait(Some(deadline));
        }
    })
}

fn natively() -> Vec<Duration> {
    let mut sleeper = Sleeper::native();
    measure(|deadline| {
        sleeper.sleep_until(deadline);
    })
}

fn measure(mut wait: impl FnMut(Instant)) -> Vec<Duration> {
    (0..SLEEPS)
        .map(|_| {
            let deadline = Instant::now() + SLEEP;
            wait(deadline);
            Instant::now() - deadline
        })
        .collect()
}

fn report(name: &str, mut lateness: Vec<Duration>) {
    lateness.sort();
    let at = |q: f64| lateness[((lateness.len() - 1) as f64 * q) as usize].as_micros();
    println!(
        "{name:<22} {:>6} {:>6} {:>6} {:>7}",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
}
