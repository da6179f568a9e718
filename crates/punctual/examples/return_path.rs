//! How late the caller gets control back, by the caller's own clock reading after the wait
//! returns: the hybrid sleeper against plain loops that sleep natively to a fixed margin and
//! then spin, interleaved in one run (one wait of each in turn).
//!
//! ```text
//! cargo run --release -p punctual --example return_path -- 1ms 3000
//! ```
//!
//! `punctual::sleep_until` is the thread's own hybrid sleeper, timed the same way. `plain` is `native sleep; while Instant::now() < deadline {}`, `plain+pause` the same with
//! `std::hint::spin_loop()` in the loop. The hybrid's own `Wake::woke` reading is printed
//! beside its caller-side figure; what lies between the two is the return path.
//!
//! The last two rows are the plain loop as a harness that holds its methods and its clock
//! behind trait objects would time it: the wait called through a vtable, and then also the
//! clock read after it. They show what such calls cost after a long spin (which is why
//! `punctual bench` compiles its measuring loop for each method's type).

mod support;
use support::parse_duration;

use std::time::{Duration, Instant};

use punctual::Sleeper;

const PLAIN_MARGIN: Duration = Duration::from_micros(150);

fn plain(native: &mut Sleeper, deadline: Instant, pause: bool) -> Instant {
    if let Some(target) = deadline.checked_sub(PLAIN_MARGIN) {
        native.sleep_until(target);
    }
    if pause {
        while Instant::now() < deadline {
            std::hint::spin_loop();
        }
    } else {
        while Instant::now() < deadline {}
    }
    Instant::now()
}

/// A wait and a clock, as a harness holding them behind trait objects calls them.
trait Wait {
    fn wait_until(&mut self, deadline: Instant);
}

trait Clock {
    fn now(&self) -> Instant;
}

struct Plain(Sleeper);

impl Wait for Plain {
    fn wait_until(&mut self, deadline: Instant) {
        plain(&mut self.0, deadline, true);
    }
}

struct Monotonic;

impl Clock for Monotonic {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

fn report(name: &str, mut nanos: Vec<u64>) {
    nanos.sort_unstable();
    let at = |q: f64| nanos[((nanos.len() as f64 * q) as usize).min(nanos.len() - 1)];
    println!(
        "{name:<22} p50 {:>7} ns  p90 {:>7} ns  p99 {:>9} ns",
        at(0.5),
        at(0.9),
        at(0.99)
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: return_path WAIT(e.g. 1ms) COUNT";
    let wait = args.next().and_then(|a| parse_duration(&a)).expect(usage);
    let count: usize = args.next().and_then(|a| a.parse().ok()).expect(usage);
    let mut hybrid = Sleeper::hybrid();
    let mut native = Sleeper::native();
    let (mut caller, mut inner, mut thread, mut loop_plain, mut loop_pause) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut via_vtable, mut clock_via_vtable) = (Vec::new(), Vec::new());
    let mut boxed: Box<dyn Wait> = Box::new(Plain(Sleeper::native()));
    let boxed = std::hint::black_box(&mut boxed);
    let clock: &dyn Clock = std::hint::black_box(&Monotonic);
    let late = |woke: Instant, deadline: Instant| (woke - deadline).as_nanos() as u64;
    for _ in 0..count {
        let deadline = Instant::now() + wait;
        let wake = hybrid.sleep_until(deadline);
        let back = Instant::now();
        caller.push(late(back, deadline));
        inner.push(late(wake.woke(), deadline));

        let deadline = Instant::now() + wait;
        punctual::sleep_until(deadline);
        thread.push(late(Instant::now(), deadline));

        let deadline = Instant::now() + wait;
        loop_plain.push(late(plain(&mut native, deadline, false), deadline));

        let deadline = Instant::now() + wait;
        loop_pause.push(late(plain(&mut native, deadline, true), deadline));

        let deadline = Instant::now() + wait;
        boxed.wait_until(deadline);
        via_vtable.push(late(Instant::now(), deadline));

        let deadline = clock.now() + wait;
        boxed.wait_until(deadline);
        clock_via_vtable.push(late(clock.now(), deadline));
    }
    println!("wait {wait:?}, {count} waits each, interleaved");
    report("hybrid (caller-side)", caller);
    report("hybrid (Wake::woke)", inner);
    report("punctual::sleep_until", thread);
    report("plain", loop_plain);
    report("plain+pause", loop_pause);
    report("plain+pause, dyn wait", via_vtable);
    report("  and dyn clock", clock_via_vtable);
    let stats = hybrid.stats();
    println!(
        "hybrid: {} sleeps, {} spun, {} capped, {} native-only, {} native-late, {} lost the CPU, {} backed off",
        stats.sleeps,
        stats.spun,
        stats.capped,
        stats.native_only,
        stats.native_late,
        stats.lost_cpu,
        stats.backed_off
    );
}
