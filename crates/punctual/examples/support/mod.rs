//! What the examples share: their arguments as people type them. Not an example itself
//! (Cargo builds only `examples/*.rs` and `examples/*/main.rs`).

use std::time::Duration;

/// A whole number with its unit, `970us` or `1ms`: `ns`, `us` (or `µs`), `ms` or `s`.
/// `None` for anything else, so that the example prints its usage.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit())?);
    let number: u64 = number.parse().ok()?;
    Some(match unit {
        "ns" => Duration::from_nanos(number),
        "us" | "µs" => Duration::from_micros(number),
        "ms" => Duration::from_millis(number),
        "s" => Duration::from_secs(number),
        _ => return None,
    })
}
