use std::ffi::{c_char, c_void};
use std::num::NonZeroU32;
use std::time::Duration;

use punctual::quantum::{self, Probe};

use super::info::intern;
use crate::clock;
use crate::status::{guard, Failure, PUNCTUAL_E_CONDITION};
use crate::sys::{self, Report};

/// How many requests `punctual_probe` times: 1, 2, 5, 10, 15, 16, 20 and 30 ms.
pub const PUNCTUAL_PROBE_REQUESTS: usize = 8;

const _: () = assert!(PUNCTUAL_PROBE_REQUESTS == quantum::REQUESTS_MS.len());

/// A sleep for `punctual_probe` to time instead of the OS's plain sleep: sleeps `ms`
/// milliseconds and returns 0, or any other value as its own error code, which ends the
/// probe with `PUNCTUAL_E_CONDITION` and the value in the report's `sleep_error`. It must
/// return normally: no C++ exception and no `longjmp` may leave it.
pub type punctual_sleep_ms_fn =
    Option<unsafe extern "C" fn(ms: u32, user_data: *mut c_void) -> i32>;

/// One request `punctual_probe` timed and its mean cost.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct punctual_probe_cost {
    /// The sleep asked for.
    pub request_ns: i64,
    /// The mean cost of one such sleep, back to back.
    pub mean_ns: i64,
}

/// What a plain sleep costs, and whether it is quantised. Versioned like `punctual_wake`:
/// set `size` to `sizeof(punctual_probe_report)` (or use `PUNCTUAL_PROBE_REPORT_INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct punctual_probe_report {
    /// In: `sizeof(punctual_probe_report)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// How many times each request was timed (after one unmeasured sleep).
    pub samples: u32,
    /// The least any one measured sleep cost.
    pub floor_ns: i64,
    /// The sleep quantum (Windows' 15.625 ms tick), or -1 when sleeps are not quantised.
    pub quantum_ns: i64,
    /// Without a quantum, the median cost past the request; -1 when quantised.
    pub overshoot_ns: i64,
    /// The OS call timed when no sleep was passed (`"Win32 Sleep()"` on Windows,
    /// `"std::thread::sleep"` elsewhere), `NULL` when the caller's sleep was timed. Static:
    /// valid until the process exits.
    pub primitive: *const c_char,
    /// The sleep's own error code with `PUNCTUAL_E_CONDITION`; 0 otherwise.
    pub sleep_error: i32,
    /// How many entries of `costs` are filled: `PUNCTUAL_PROBE_REQUESTS`, or 0 after the
    /// sleep's own error.
    pub cost_count: u32,
    /// Each request, from the shortest, with its mean cost.
    pub costs: [punctual_probe_cost; PUNCTUAL_PROBE_REQUESTS],
}

impl Report for punctual_probe_report {
    const NAME: &'static str = "punctual_probe_report";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

impl punctual_probe_report {
    fn empty(samples: u32, primitive: *const c_char) -> punctual_probe_report {
        punctual_probe_report {
            size: 0,
            samples,
            floor_ns: -1,
            quantum_ns: -1,
            overshoot_ns: -1,
            primitive,
            sleep_error: 0,
            cost_count: 0,
            costs: [punctual_probe_cost::default(); PUNCTUAL_PROBE_REQUESTS],
        }
    }

    fn of(probe: &Probe, samples: u32, primitive: *const c_char) -> punctual_probe_report {
        let mut report = punctual_probe_report::empty(samples, primitive);
        report.floor_ns = clock::duration_ns(probe.floor);
        report.quantum_ns = probe.quantum.map_or(-1, clock::duration_ns);
        report.overshoot_ns = probe.overshoot.map_or(-1, clock::duration_ns);
        for (slot, cost) in report.costs.iter_mut().zip(&probe.costs) {
            *slot = punctual_probe_cost {
                request_ns: clock::duration_ns(cost.request),
                mean_ns: clock::duration_ns(cost.mean),
            };
            report.cost_count += 1;
        }
        report
    }
}

/// Times a plain sleep back to back at each of the `PUNCTUAL_PROBE_REQUESTS` requests,
/// 1 to 30 ms, `samples` times each after one unmeasured sleep, and fills `*report` with
/// the costs, the floor and the verdict: the quantum when sleeps are quantised (feed it to
/// `punctual_cheat_sheet`), the overshoot when not. The sleep timed is `sleep(ms,
/// user_data)`, or with `sleep` `NULL` the OS's plain sleep: Win32 `Sleep` on Windows (the
/// call behind Cheat Engine's and C#'s sleeps), `nanosleep` through `std::thread::sleep`
/// elsewhere. Costs are read on `punctual_now_ns()`'s clock. It takes at least
/// `(samples + 1) * 99` ms; on a 15.625 ms tick, `(samples + 1) * 188` ms.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_CONDITION` when `sleep` returned its own code (in
/// `report->sleep_error`, the probe ended there); before timing anything,
/// `PUNCTUAL_E_INVALID_ARGUMENT` for no samples or a `report->size` too small and
/// `PUNCTUAL_E_NULL_POINTER` for a `NULL` report.
///
/// Thread-safe: the sleeps run on the calling thread.
#[no_mangle]
pub extern "C" fn punctual_probe(
    samples: u32,
    sleep: punctual_sleep_ms_fn,
    user_data: *mut c_void,
    report: *mut punctual_probe_report,
) -> i32 {
    guard(|| {
        sys::check_report(report, "report", false)?;
        let count = NonZeroU32::new(samples)
            .ok_or_else(|| Failure::invalid("samples is 0: time each request at least once"))?;
        let Some(sleep) = sleep else {
            let plain = intern(quantum::PLAIN_SLEEP);
            let probe = quantum::probe(count);
            return sys::write_report(
                report,
                punctual_probe_report::of(&probe, samples, plain),
                "report",
                false,
            );
        };
        let probe = quantum::probe_with(count, |ms| match sys::call_sleep(sleep, ms, user_data) {
            0 => Ok(()),
            own => Err(own),
        });
        match probe {
            Ok(probe) => {
                let filled = punctual_probe_report::of(&probe, samples, std::ptr::null());
                sys::write_report(report, filled, "report", false)
            }
            Err(code) => {
                let mut filled = punctual_probe_report::empty(samples, std::ptr::null());
                filled.sleep_error = code;
                sys::write_report(report, filled, "report", false)?;
                Err(Failure::new(
                    PUNCTUAL_E_CONDITION,
                    format!("the sleep failed with its own code {code}; the probe ended there"),
                ))
            }
        }
    })
}

/// One band of a quantum's cheat sheet: asking for `request_ms` costs about `k` quanta.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct punctual_band {
    /// The number of quanta, from 1.
    pub k: u32,
    /// The whole-millisecond request in the middle of the band, `round(q * k - q / 2)`: the
    /// safest from the jitter at a tick edge, where a request costs one quantum or two by
    /// chance.
    pub request_ms: i64,
    /// What such a sleep costs: `k` quanta.
    pub cost_ns: i64,
    /// How many such sleeps fit in a second.
    pub rate_hz: f64,
}

/// Fills `bands[0..count]` with the first `count` bands of `quantum_ns` (`k` from 1; 15.625
/// ms gives requests 8, 23, 39, 55, ...) and stores how many it filled in `*filled` (may be
/// `NULL`): `count`, or fewer where a band's request would pass `INT64_MAX` ms (or past
/// `UINT32_MAX` bands).
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_INVALID_ARGUMENT` for a quantum of zero or less;
/// `PUNCTUAL_E_NULL_POINTER` for `NULL` bands with a count above zero. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_cheat_sheet(
    quantum_ns: i64,
    bands: *mut punctual_band,
    count: usize,
    filled: *mut usize,
) -> i32 {
    guard(|| {
        if quantum_ns <= 0 {
            return Err(Failure::invalid(format!(
                "quantum_ns must be more than 0; got {quantum_ns}"
            )));
        }
        let wanted = u32::try_from(count).unwrap_or(u32::MAX);
        let sheet: Vec<punctual_band> =
            quantum::cheat_sheet(Duration::from_nanos(quantum_ns.unsigned_abs()), wanted)
                .iter()
                .map_while(|band| {
                    Some(punctual_band {
                        k: band.k,
                        request_ms: i64::try_from(band.request_ms).ok()?,
                        cost_ns: i64::try_from(band.cost.as_nanos()).ok()?,
                        rate_hz: band.rate_hz(),
                    })
                })
                .collect();
        sys::write_slice(bands, count, &sheet, "bands")?;
        if !filled.is_null() {
            sys::write(filled, sheet.len(), "filled")?;
        }
        Ok(())
    })
}
