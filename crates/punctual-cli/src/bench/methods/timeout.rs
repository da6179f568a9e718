//! The time left, in the units the OS calls take, rounded up as a careful program rounds
//! it: a timeout rounded down wakes early by the part cut off.

use std::time::Duration;

/// Whole milliseconds, rounded up, for a C `int` timeout (`epoll_wait`, `poll`): at most
/// `i32::MAX`, since a negative one means "forever".
pub fn whole_ms_i32(left: Duration) -> i32 {
    i32::try_from(ms_rounded_up(left)).unwrap_or(i32::MAX)
}

/// Whole milliseconds, rounded up, for a `DWORD` timeout (`Sleep`): at most
/// `0xFFFF_FFFE`, since `0xFFFF_FFFF` is `INFINITE`.
pub fn whole_ms_u32(left: Duration) -> u32 {
    u32::try_from(ms_rounded_up(left)).map_or(u32::MAX - 1, |ms| ms.min(u32::MAX - 1))
}

fn ms_rounded_up(left: Duration) -> u128 {
    left.as_nanos().div_ceil(1_000_000)
}

/// Whole microseconds, rounded up, for a C `useconds_t` (`usleep`): at most `u32::MAX`.
pub fn whole_us_u32(left: Duration) -> u32 {
    u32::try_from(left.as_nanos().div_ceil(1_000)).unwrap_or(u32::MAX)
}

/// A `struct timeval` (`select`): seconds and microseconds, rounded up to the microsecond.
pub fn timeval(left: Duration) -> (u64, u32) {
    let micros = left.as_nanos().div_ceil(1_000);
    let seconds = u64::try_from(micros / 1_000_000).unwrap_or(u64::MAX);
    (seconds, (micros % 1_000_000) as u32)
}

/// 100 ns units, rounded up, for a waitable timer's due time: at most `i64::MAX`.
pub fn hundreds_of_ns(left: Duration) -> i64 {
    i64::try_from(left.as_nanos().div_ceil(100)).unwrap_or(i64::MAX)
}

/// Nanoseconds, for a kqueue timer's `NOTE_NSECONDS` data: at most `u64::MAX`.
pub fn nanos(left: Duration) -> u64 {
    u64::try_from(left.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: Duration = Duration::from_nanos(1);
    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn milliseconds_round_up_and_saturate_short_of_forever() {
        assert_eq!(whole_ms_i32(Duration::ZERO), 0);
        assert_eq!(whole_ms_i32(NS), 1);
        assert_eq!(whole_ms_i32(MS), 1);
        assert_eq!(whole_ms_i32(MS + NS), 2);
        assert_eq!(whole_ms_i32(Duration::from_micros(10_999)), 11);
        assert_eq!(whole_ms_i32(Duration::MAX), i32::MAX);
        assert_eq!(whole_ms_u32(NS), 1);
        assert_eq!(whole_ms_u32(MS * 15 + NS), 16);
        assert_eq!(
            whole_ms_u32(Duration::from_secs(u64::from(u32::MAX))),
            u32::MAX - 1
        );
        assert_eq!(whole_ms_u32(Duration::MAX), u32::MAX - 1);
    }

    #[test]
    fn microseconds_round_up() {
        assert_eq!(whole_us_u32(Duration::ZERO), 0);
        assert_eq!(whole_us_u32(NS), 1);
        assert_eq!(whole_us_u32(Duration::from_nanos(1_001)), 2);
        assert_eq!(whole_us_u32(Duration::MAX), u32::MAX);
    }

    #[test]
    fn a_timeval_rounds_up_to_the_microsecond_and_carries_into_seconds() {
        assert_eq!(timeval(Duration::ZERO), (0, 0));
        assert_eq!(timeval(NS), (0, 1));
        assert_eq!(timeval(Duration::from_nanos(999_999_001)), (1, 0));
        assert_eq!(timeval(Duration::new(1, 500_000_001)), (1, 500_001));
        assert_eq!(timeval(Duration::new(7, 0)), (7, 0));
        assert_eq!(timeval(Duration::MAX), (u64::MAX, 0));
    }

    #[test]
    fn hundreds_of_nanoseconds_round_up() {
        assert_eq!(hundreds_of_ns(NS), 1);
        assert_eq!(hundreds_of_ns(Duration::from_nanos(200)), 2);
        assert_eq!(hundreds_of_ns(Duration::from_nanos(201)), 3);
        assert_eq!(hundreds_of_ns(Duration::MAX), i64::MAX);
        assert_eq!(nanos(Duration::MAX), u64::MAX);
    }
}
