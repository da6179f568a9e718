//! Python's numbers of seconds and nanoseconds, checked and converted exactly.
//!
//! A float of seconds becomes the first whole nanosecond whose own float (`ns / 1e9`, as
//! `time.perf_counter()` computes its readings) is not less than it: `0.001` is 1,000,000
//! ns, not the 1,000,001 that rounding its exact binary value (0.00100000000000000002) up
//! would give, and a deadline converted so is reached exactly when `time.perf_counter() >=
//! deadline` first holds, never before. Ints are exact. Every value that cannot be one
//! (NaN, infinities, negative waits, more than `i64` nanoseconds, bools, strings) is
//! refused with a message that names the argument.

use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

/// The largest count of nanoseconds accepted: `time.perf_counter_ns()`'s range, about
/// 292 years, as `time.sleep` accepts.
pub(crate) const MAX_NS: i128 = i64::MAX as i128;

const NS_PER_SEC: i128 = 1_000_000_000;

/// Far past [`MAX_NS`], and safe to negate and step.
const SATURATED: i128 = 1 << 100;

/// `seconds * 1e9` rounded toward -inf, from the float's exact binary value; `None` for
/// NaN and infinities. Past `2^92` seconds either way it saturates at `±2^100`, which every
/// caller refuses as too large.
fn floor_ns(seconds: f64) -> Option<i128> {
    if !seconds.is_finite() {
        return None;
    }
    let bits = seconds.to_bits();
    let negative = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // |seconds| = mantissa * 2^exponent, exactly.
    let (mantissa, exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let scaled = u128::from(mantissa) * NS_PER_SEC as u128; // below 2^83
    let (whole, inexact) = if exponent >= 0 {
        if exponent > 40 {
            return Some(if negative { -SATURATED } else { SATURATED });
        }
        (scaled << exponent, false)
    } else {
        let shift = exponent.unsigned_abs();
        if shift >= 128 {
            (0, scaled != 0)
        } else {
            (scaled >> shift, scaled & ((1u128 << shift) - 1) != 0)
        }
    };
    let whole = whole as i128; // below 2^124
    Some(if negative {
        -whole - i128::from(inexact)
    } else {
        whole
    })
}

/// `ns` as float seconds, as `time.perf_counter()` turns its own nanoseconds into a float.
pub(crate) fn seconds_of_ns(ns: i128) -> f64 {
    ns as f64 / 1e9
}

/// The first nanosecond whose float of seconds is not less than `seconds`; `None` for NaN
/// and infinities. Within [`MAX_NS`] it is at most one float step (a nanosecond below 104
/// days, 2 us at the top of the range) from `seconds * 1e9`.
pub(crate) fn ns_of_seconds(seconds: f64) -> Option<i128> {
    let floor = floor_ns(seconds)?;
    if floor.abs() > MAX_NS {
        return Some(floor);
    }
    // The float of `floor - 1` rounds below `seconds` or to it; step up to the first that
    // does not round below. A few steps at most, some thousands at 292 years.
    let mut ns = floor - 1;
    while seconds_of_ns(ns) < seconds {
        ns += 1;
    }
    // Also the first: no smaller count rounds up to `seconds` or past it.
    while seconds_of_ns(ns - 1) >= seconds {
        ns -= 1;
    }
    Some(ns)
}

/// What a checked number of seconds is for: the argument's name, for messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arg(pub(crate) &'static str);

impl Arg {
    fn too_large(self, value: impl std::fmt::Display) -> PyErr {
        PyValueError::new_err(format!(
            "{} is too large: at most {} seconds (about 292 years); got {value}",
            self.0,
            MAX_NS / NS_PER_SEC
        ))
    }

    fn not_finite(self, value: f64) -> PyErr {
        // As Python prints them: nan, inf, -inf.
        let value = if value.is_nan() {
            "nan".to_string()
        } else {
            value.to_string()
        };
        PyValueError::new_err(format!("{} must be finite; got {value}", self.0))
    }

    /// A float or an int of seconds, as nanoseconds rounded up; not range-checked.
    fn seconds_ns(self, value: &Bound<'_, PyAny>) -> PyResult<(i128, String, bool)> {
        if value.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "{} must be a number of seconds (int or float), not bool",
                self.0
            )));
        }
        if let Ok(float) = value.downcast::<PyFloat>() {
            let seconds = float.value();
            let ns = ns_of_seconds(seconds).ok_or_else(|| self.not_finite(seconds))?;
            return Ok((ns, format!("{seconds:?}"), seconds < 0.0));
        }
        if let Ok(int) = value.downcast::<PyInt>() {
            return match int.extract::<i64>() {
                Ok(seconds) => Ok((
                    i128::from(seconds) * NS_PER_SEC,
                    seconds.to_string(),
                    seconds < 0,
                )),
                Err(_) => Err(self.too_large(int)),
            };
        }
        Err(self.wrong_type(value, "a number of seconds (int or float)"))
    }

    fn wrong_type(self, value: &Bound<'_, PyAny>, wanted: &str) -> PyErr {
        let type_name = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |name| name.to_string());
        PyTypeError::new_err(format!("{} must be {wanted}, not {type_name}", self.0))
    }

    /// A wait: zero or more seconds, at most [`MAX_NS`] nanoseconds.
    pub(crate) fn duration(self, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
        let (ns, shown, negative) = self.seconds_ns(value)?;
        if negative {
            return Err(PyValueError::new_err(format!(
                "{} must not be negative; got {shown}",
                self.0
            )));
        }
        if ns > MAX_NS {
            return Err(self.too_large(shown));
        }
        Ok(Duration::from_nanos(ns as u64))
    }

    /// A wait that must be longer than zero (a period).
    pub(crate) fn positive_duration(self, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
        let duration = self.duration(value)?;
        if duration.is_zero() {
            return Err(PyValueError::new_err(format!(
                "{} must be longer than zero",
                self.0
            )));
        }
        Ok(duration)
    }

    /// A deadline in seconds on `time.perf_counter()`'s clock, in its nanoseconds; any
    /// finite value within [`MAX_NS`] either way (a past one is simply due).
    pub(crate) fn deadline_ns(self, value: &Bound<'_, PyAny>) -> PyResult<i128> {
        let (ns, shown, _) = self.seconds_ns(value)?;
        if ns.abs() > MAX_NS {
            return Err(self.too_large(shown));
        }
        Ok(ns)
    }

    /// A deadline in whole nanoseconds on `time.perf_counter_ns()`'s clock.
    pub(crate) fn deadline_ns_int(self, value: &Bound<'_, PyAny>) -> PyResult<i128> {
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            return Err(self.wrong_type(value, "an int of nanoseconds"));
        }
        value
            .extract::<i64>()
            .map(i128::from)
            .map_err(|_| self.too_large(value))
    }
}
