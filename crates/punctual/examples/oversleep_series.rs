//! Records how late native sleeps wake, one line per sleep in nanoseconds, for replaying
//! margin policies offline (docs/margin/replay.py).
//!
//! ```text
//! cargo run --release -p punctual --example oversleep_series -- 970us 12000 > series.txt
//! ```

mod support;
use support::parse_duration;

use std::time::{Duration, Instant};

use punctual::Sleeper;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: oversleep_series LENGTH(e.g. 970us) COUNT";
    let length = args.next().and_then(|a| parse_duration(&a)).expect(usage);
    let count: usize = args.next().and_then(|a| a.parse().ok()).expect(usage);
    let mut sleeper = Sleeper::native();
    for _ in 0..count {
        let wake = sleeper.sleep(length);
        println!("{}", wake.lateness().as_nanos());
        // A little work between sleeps, as a caller would do.
        let work = Instant::now();
        while work.elapsed() < Duration::from_micros(20) {
            std::hint::spin_loop();
        }
    }
}
