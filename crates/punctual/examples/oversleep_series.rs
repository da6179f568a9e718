//! Records how late native sleeps wake, one line per sleep in nanoseconds, for replaying
//! margin policies offline (docs/margin/replay.py).
//!
//! ```text
//! cargo run --release -p punctual --example oversleep_series -- 970us 12000 > series.txt
//! ```

use std::time::{Duration, Instant};

use punctual::Sleeper;

fn parse_duration(text: &str) -> Option<Duration> {
    let (number, unit) = text.split_at(text.find(|c: char| c.is_ascii_alphabetic())?);
    let number: u64 = number.parse().ok()?;
    Some(match unit {
        "ns" => Duration::from_nanos(number),
        "us" => Duration::from_micros(number),
        "ms" => Duration::from_millis(number),
        "s" => Duration::from_secs(number),
        _ => return None,
    })
}

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
