//! The OS clock behind `std::time::Instant`, read directly once, to anchor nanoseconds.

/// Now on the clock `Instant` reads, in nanoseconds.
///
/// # Implementation notes
///
/// The clock std's `Instant::now()` uses: Linux and other Unix `clock_gettime(CLOCK_MONOTONIC)`,
/// macOS `clock_gettime(CLOCK_UPTIME_RAW)`, Windows `QueryPerformanceCounter` scaled as std
/// scales it (whole seconds, then the remainder, truncated). Elsewhere there is no such
/// clock to name: nanoseconds count from the first call.
#[cfg(all(unix, not(target_vendor = "apple")))]
pub(crate) fn monotonic_ns() -> i64 {
    unix_ns(libc::CLOCK_MONOTONIC)
}

#[cfg(target_vendor = "apple")]
pub(crate) fn monotonic_ns() -> i64 {
    unix_ns(libc::CLOCK_UPTIME_RAW)
}

#[cfg(unix)]
// time_t and c_long are i64 here and i32 on 32-bit targets, where the conversion is needed.
#[allow(clippy::useless_conversion)]
fn unix_ns(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime(2) fails only with EINVAL
    // for a clock the system lacks, and these clocks are the ones std itself reads.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    i64::from(ts.tv_sec)
        .saturating_mul(1_000_000_000)
        .saturating_add(i64::from(ts.tv_nsec))
}

#[cfg(windows)]
pub(crate) fn monotonic_ns() -> i64 {
    use windows_sys::Win32::System::Performance::{
        QueryPerformanceCounter, QueryPerformanceFrequency,
    };
    let (mut frequency, mut count) = (0i64, 0i64);
    // SAFETY: both take a pointer to an i64 to write; they cannot fail on Windows XP and
    // later (documented), so the values are always set.
    unsafe {
        QueryPerformanceFrequency(&mut frequency);
        QueryPerformanceCounter(&mut count);
    }
    let frequency = frequency.max(1);
    (count / frequency)
        .saturating_mul(1_000_000_000)
        .saturating_add((count % frequency) * 1_000_000_000 / frequency)
}

#[cfg(not(any(unix, windows)))]
pub(crate) fn monotonic_ns() -> i64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    let start = *START.get_or_init(Instant::now);
    i64::try_from(start.elapsed().as_nanos()).unwrap_or(i64::MAX)
}
