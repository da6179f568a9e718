//! `punctual.probe()`, `punctual.Probe`, `punctual.cheat_sheet()` and `punctual.Band`: the
//! library's sleep probe ([`punctual::quantum`]) in seconds.

use std::num::NonZeroU32;
use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use punctual::quantum::{self, Probe};

use crate::convert::{seconds_of_ns, Arg};
use crate::exit::park_if_exiting;

fn seconds(duration: Duration) -> f64 {
    seconds_of_ns(duration.as_nanos() as i128)
}

/// One band of a quantum's cheat sheet: asking for `request` (`request_ms`) costs about `k`
/// quanta, `cost` seconds.
#[pyclass(name = "Band", module = "punctual", frozen)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyBand {
    inner: quantum::Band,
}

#[pymethods]
impl PyBand {
    /// The number of quanta, from 1.
    #[getter]
    fn k(&self) -> u32 {
        self.inner.k
    }

    /// The whole-millisecond request in the middle of the band, `round(q * k - q / 2)`.
    #[getter]
    fn request_ms(&self) -> u64 {
        self.inner.request_ms
    }

    /// The same request in seconds, for `time.sleep`.
    #[getter]
    fn request(&self) -> f64 {
        self.inner.request_ms as f64 / 1e3
    }

    /// What such a sleep costs, in seconds: `k` quanta.
    #[getter]
    fn cost(&self) -> f64 {
        seconds(self.inner.cost)
    }

    /// How many such sleeps fit in a second.
    #[getter]
    fn rate_hz(&self) -> f64 {
        self.inner.rate_hz()
    }

    fn __repr__(&self) -> String {
        format!(
            "Band(k={}, request_ms={}, cost={:?})",
            self.inner.k,
            self.inner.request_ms,
            self.cost()
        )
    }
}

fn bands_of(quantum: Duration, bands: u32) -> Vec<PyBand> {
    quantum::cheat_sheet(quantum, bands)
        .into_iter()
        .map(|inner| PyBand { inner })
        .collect()
}

/// A whole count of at least 1: `samples`, `bands`.
fn count(name: &str, value: i64) -> PyResult<NonZeroU32> {
    u32::try_from(value)
        .ok()
        .and_then(NonZeroU32::new)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "{name} must be from 1 to {}; got {value}",
                u32::MAX
            ))
        })
}

/// What a plain sleep costs here, and whether it is quantised: `costs` (each request and
/// its mean cost back to back, in seconds), `floor`, `quantum` (seconds, or None when not
/// quantised), `overshoot` (without a quantum, the median cost past the request),
/// `primitive` (the OS call timed, or None for a sleep passed in), `cheat_sheet()`.
#[pyclass(name = "Probe", module = "punctual", frozen)]
#[derive(Debug, Clone)]
pub(crate) struct PyProbe {
    inner: Probe,
    samples: u32,
    primitive: Option<&'static str>,
}

#[pymethods]
impl PyProbe {
    /// How many times each request was timed (after one unmeasured sleep).
    #[getter]
    fn samples(&self) -> u32 {
        self.samples
    }

    /// `(request, mean cost)` in seconds for each request, 1 ms to 30 ms.
    #[getter]
    fn costs(&self) -> Vec<(f64, f64)> {
        self.inner
            .costs
            .iter()
            .map(|c| (seconds(c.request), seconds(c.mean)))
            .collect()
    }

    /// The least any one measured sleep cost, in seconds.
    #[getter]
    fn floor(&self) -> f64 {
        seconds(self.inner.floor)
    }

    /// The sleep quantum in seconds (Windows' 15.625 ms tick), or None when sleeps are not
    /// quantised.
    #[getter]
    fn quantum(&self) -> Option<f64> {
        self.inner.quantum.map(seconds)
    }

    /// Without a quantum, the median cost past the request in seconds; None when quantised.
    #[getter]
    fn overshoot(&self) -> Option<f64> {
        self.inner.overshoot.map(seconds)
    }

    /// The OS call timed (`"Win32 Sleep()"` on Windows, `"std::thread::sleep"` elsewhere),
    /// or None when the probe timed a sleep passed in.
    #[getter]
    fn primitive(&self) -> Option<&'static str> {
        self.primitive
    }

    /// The first `bands` mid-band requests of the quantum; empty when not quantised.
    #[pyo3(signature = (bands = 10))]
    fn cheat_sheet(&self, bands: i64) -> PyResult<Vec<PyBand>> {
        let bands = count("bands", bands)?.get();
        Ok(self
            .inner
            .quantum
            .map(|q| bands_of(q, bands))
            .unwrap_or_default())
    }

    fn __repr__(&self) -> String {
        match (self.quantum(), self.overshoot()) {
            (Some(q), _) => format!("Probe(quantum={q:?}, floor={:?})", self.floor()),
            (None, over) => format!(
                "Probe(quantum=None, overshoot={over:?}, floor={:?})",
                self.floor()
            ),
        }
    }
}

/// Times a plain sleep back to back at 1, 2, 5, 10, 15, 16, 20 and 30 ms, `samples` times
/// each after one unmeasured sleep, and says whether it is quantised. The sleep is the
/// OS's (`Sleep` on Windows, the call behind Cheat Engine's and C#'s sleeps), or
/// `sleep(seconds)` when given (`time.sleep`, say), timed on `time.perf_counter()`'s clock.
///
/// Takes at least `(samples + 1) * 0.099` seconds (`* 0.188` on a 15.625 ms tick), with the
/// GIL released; Ctrl-C is answered between sleeps. Raises `ValueError` for a count below
/// 1 and whatever `sleep` raises, which ends the probe.
#[pyfunction]
#[pyo3(signature = (samples = 5, *, sleep = None))]
pub(crate) fn probe(
    py: Python<'_>,
    samples: i64,
    sleep: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyProbe> {
    let count = count("samples", samples)?;
    let sleep = sleep.filter(|s| !s.is_none());
    if sleep.is_some_and(|s| !s.is_callable()) {
        return Err(PyTypeError::new_err(
            "sleep must be callable (taking seconds) or None",
        ));
    }
    let sleep = sleep.map(|s| s.clone().unbind());
    let primitive = sleep.is_none().then_some(quantum::PLAIN_SLEEP);
    let inner = py.allow_threads(|| {
        quantum::probe_with(count, |ms| {
            park_if_exiting();
            match &sleep {
                Some(sleep) => Python::with_gil(|py| {
                    py.check_signals()?;
                    sleep.call1(py, (f64::from(ms) / 1e3,)).map(drop)
                }),
                None => {
                    Python::with_gil(|py| py.check_signals())?;
                    // What quantum::probe times; called here so that Ctrl-C is answered
                    // between its sleeps.
                    punctual_sys::plain_sleep(ms);
                    Ok(())
                }
            }
        })
    })?;
    Ok(PyProbe {
        inner,
        samples: count.get(),
        primitive,
    })
}

/// The first `bands` mid-band requests of `quantum` seconds (0.015625 gives 8, 23, 39, 55
/// ms, ...): whole milliseconds away from the tick edges.
#[pyfunction]
#[pyo3(signature = (quantum, bands = 10))]
pub(crate) fn cheat_sheet(quantum: &Bound<'_, PyAny>, bands: i64) -> PyResult<Vec<PyBand>> {
    let quantum = Arg("quantum").positive_duration(quantum)?;
    Ok(bands_of(quantum, count("bands", bands)?.get()))
}
