//! Durations as people type and read them: `100us`, `1.5ms`, `62 ns`, `1.23 µs`.

use std::time::Duration;

/// The longest wait the CLI accepts: longer is surely a typo, and would take hours to measure.
pub const MAX_WAIT: Duration = Duration::from_secs(3600);

/// The longest run `--duration` accepts: a month, longer than any soak test needs.
pub const MAX_RUN: Duration = Duration::from_secs(31 * 24 * 3600);

/// Parses `<number><unit>` with unit `ns`, `us` (or `µs`), `ms` or `s`; decimals allowed.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    parse_up_to(text, MAX_WAIT, false)
}

/// A run length, longer than zero and at most [`MAX_RUN`]: what [`parse_duration`] takes,
/// plus minutes (`m` or `min`), hours (`h`) and days (`d`), as cyclictest's `-D` takes them.
pub fn parse_run_length(text: &str) -> Result<Duration, String> {
    let run = parse_up_to(text, MAX_RUN, true)?;
    if run.is_zero() {
        return Err(format!("`{text}` is zero: a run must be longer than zero"));
    }
    Ok(run)
}

fn parse_up_to(text: &str, max: Duration, long_units: bool) -> Result<Duration, String> {
    let text = text.trim();
    if text.starts_with('-') {
        return Err(format!(
            "`{text}` is negative: a wait is a length of time, zero or more"
        ));
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err(format!(
            "`{text}` is not a duration: write e.g. 100us, 1.5ms or 2s"
        ));
    }
    let units = if long_units {
        "ns, us, ms, s, m, h or d"
    } else {
        "ns, us, ms or s"
    };
    let nanos_per_unit: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" if long_units => 60e9,
        "h" if long_units => 3600e9,
        "d" if long_units => 86400e9,
        "" => return Err(format!("`{text}` has no unit: write e.g. 100us, 1ms or 2s")),
        other => return Err(format!("`{other}` is not a unit: use {units}")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: write e.g. 100us, 1.5ms or 2s"))?;
    let nanos = (value * nanos_per_unit).round();
    if !nanos.is_finite() || nanos > max.as_nanos() as f64 {
        let most = if long_units {
            format!("{} days", max.as_secs() / 86_400)
        } else {
            format_duration(max)
        };
        return Err(format!("`{text}` is too long: at most {most}"));
    }
    Ok(Duration::from_nanos(nanos as u64))
}

/// A wait: a duration longer than zero and at most [`MAX_WAIT`].
pub fn parse_wait(text: &str) -> Result<Duration, String> {
    let wait = parse_duration(text)?;
    if wait.is_zero() {
        return Err(format!("`{text}` is zero: a wait must be longer than zero"));
    }
    Ok(wait)
}

/// A comma-separated list of waits, e.g. `100us,1ms,10ms`.
pub fn parse_wait_list(text: &str) -> Result<Vec<Duration>, String> {
    let waits = text
        .split(',')
        .map(parse_wait)
        .collect::<Result<Vec<_>, _>>()?;
    if waits.is_empty() {
        return Err("no waits given".to_string());
    }
    Ok(waits)
}

/// Three significant figures in the largest unit that keeps the number at least 1;
/// nanoseconds are always whole.
pub fn format_nanos(nanos: f64) -> String {
    let rounded = round_significant(nanos, 3).round();
    let magnitude = rounded.abs();
    let (value, unit) = match magnitude {
        m if m < 1e3 => return format!("{rounded:.0} ns"),
        m if m < 1e6 => (rounded / 1e3, "µs"),
        m if m < 1e9 => (rounded / 1e6, "ms"),
        _ => (rounded / 1e9, "s"),
    };
    let decimals = match value.abs() {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    format!("{value:.decimals$} {unit}")
}

fn round_significant(value: f64, digits: i32) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(digits - 1 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}

/// A duration as [`format_nanos`] writes it.
pub fn format_duration(duration: Duration) -> String {
    format_nanos(duration.as_nanos() as f64)
}

/// A compact label for a wait length: `100us`, `1ms`, `1.5ms`, `2s`, as typed on the command line.
pub fn wait_label(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    for (unit, size) in [("s", 1_000_000_000u128), ("ms", 1_000_000), ("us", 1_000)] {
        if nanos >= size {
            return if nanos.is_multiple_of(size) {
                format!("{}{unit}", nanos / size)
            } else {
                let value = nanos as f64 / size as f64;
                format!("{}{unit}", format!("{value:.3}").trim_end_matches('0'))
            };
        }
    }
    format!("{nanos}ns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_people_type() {
        assert_eq!(parse_duration("100us"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("100µs"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("1.5ms"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("250ns"), Ok(Duration::from_nanos(250)));
        assert_eq!(parse_duration("0ms"), Ok(Duration::ZERO));
        assert_eq!(parse_wait_list("100us,1ms,10ms").unwrap().len(), 3);
    }

    #[test]
    fn refuses_what_is_not_a_wait() {
        assert!(parse_wait("0").unwrap_err().contains("no unit"));
        assert!(parse_wait("0ms").unwrap_err().contains("zero"));
        assert!(parse_wait("-1ms").unwrap_err().contains("negative"));
        assert!(parse_wait("abc").unwrap_err().contains("not a duration"));
        assert!(parse_wait("1.2.3ms")
            .unwrap_err()
            .contains("not a duration"));
        assert!(parse_wait("5min").unwrap_err().contains("not a unit"));
        assert!(parse_wait("99999999999999999999s")
            .unwrap_err()
            .contains("too long"));
        assert!(parse_wait("2h").is_err());
        assert!(parse_wait_list("1ms,,2ms").is_err());
    }

    #[test]
    fn run_lengths_take_minutes_hours_and_days() {
        assert_eq!(parse_run_length("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_run_length("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_run_length("10min"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_run_length("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_run_length("2d"), Ok(Duration::from_secs(172_800)));
        assert_eq!(parse_run_length("10ms"), Ok(Duration::from_millis(10)));
        assert!(parse_run_length("0s").unwrap_err().contains("zero"));
        assert!(parse_run_length("-1h").unwrap_err().contains("negative"));
        assert!(parse_run_length("32d").unwrap_err().contains("too long"));
        assert!(parse_run_length("2w").unwrap_err().contains("m, h or d"));
    }

    #[test]
    fn formats_three_significant_figures() {
        assert_eq!(format_nanos(62.0), "62 ns");
        assert_eq!(format_nanos(1234.0), "1.23 µs");
        assert_eq!(format_nanos(81_400.0), "81.4 µs");
        assert_eq!(format_nanos(999_700.0), "1.00 ms");
        assert_eq!(format_nanos(15_625_000.0), "15.6 ms");
        assert_eq!(format_nanos(2e9), "2.00 s");
        assert_eq!(format_nanos(-3500.0), "-3.50 µs");
        assert_eq!(wait_label(Duration::from_micros(100)), "100us");
        assert_eq!(wait_label(Duration::from_micros(1500)), "1.5ms");
        assert_eq!(wait_label(Duration::from_millis(10)), "10ms");
    }
}
