//! `punctual.sleep`, `sleep_until`, `sleep_until_ns` and `punctual.Sleeper`.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use punctual::{Sleeper, Strategy};

use crate::clock::Frame;
use crate::convert::{seconds_of_ns, Arg};
use crate::retake;
use crate::wait::wait_until;
use crate::wake::PyWake;

/// A strategy by name: `"native"`, `"hybrid"` or `"spin"`.
pub(crate) fn strategy_of(name: &str) -> PyResult<Strategy> {
    name.parse::<Strategy>()
        .map_err(|unknown| PyValueError::new_err(unknown.to_string()))
}

/// Where a wait ends: an instant, or the deadline as written when `Instant` cannot hold it.
pub(crate) enum Target {
    /// Due at this instant.
    At(Instant),
    /// Before the start of `Instant`: due already, reported against the nanoseconds given.
    Past(i128),
    /// Past the end of `Instant`: never due.
    Never,
}

impl Target {
    pub(crate) fn after(seconds: &Bound<'_, PyAny>) -> PyResult<Target> {
        let duration = Arg("seconds").duration(seconds)?;
        Ok(Instant::now()
            .checked_add(duration)
            .map_or(Target::Never, Target::At))
    }

    pub(crate) fn of_ns(frame: &Frame, deadline_ns: i128) -> Target {
        match frame.instant_of(deadline_ns) {
            Some(instant) => Target::At(instant),
            None if deadline_ns < 0 => Target::Past(deadline_ns),
            None => Target::Never,
        }
    }

    pub(crate) fn until(frame: &Frame, deadline: &Bound<'_, PyAny>) -> PyResult<Target> {
        Ok(Target::of_ns(frame, Arg("deadline").deadline_ns(deadline)?))
    }

    pub(crate) fn until_ns(frame: &Frame, deadline_ns: &Bound<'_, PyAny>) -> PyResult<Target> {
        Ok(Target::of_ns(
            frame,
            Arg("deadline_ns").deadline_ns_int(deadline_ns)?,
        ))
    }
}

/// Waits for `target` with `sleeper` (`None`: this thread's hybrid sleeper, as
/// `punctual::sleep` uses), the GIL released, Ctrl-C answered, and returns a lead before
/// it ([`retake::python_lead`]) for the package's Python code to spin the rest and
/// `_arrive`. The report is allocated before the wait, so that filling it in is all that
/// follows the binding's last reading.
pub(crate) fn wait(
    py: Python<'_>,
    sleeper: Option<&mut Sleeper>,
    target: Target,
) -> PyResult<Py<PyWake>> {
    let frame = Frame::get(py)?;
    let report = Py::new(py, PyWake::pending())?;
    let strategy = sleeper.as_ref().map_or(Strategy::Hybrid, |s| s.strategy());
    let lead = retake::python_lead(strategy);
    let (deadline, deadline_ns) = match target {
        Target::At(instant) => (Some(instant), frame.ns_of(instant)),
        // Due already: any instant not after now stands in, and the report keeps the
        // deadline as written.
        Target::Past(ns) => (Some(Instant::now()), ns),
        Target::Never => (None, i128::MAX),
    };
    // A deadline too close to the clock's start for the lead returns at once, and the
    // Python half spins it all.
    let early = deadline.map(|d| d.checked_sub(lead).unwrap_or(d.min(Instant::now())));
    let ended = match sleeper {
        Some(sleeper) => wait_until(py, early, strategy, |d| sleeper.sleep_until(d))?,
        None => wait_until(py, early, strategy, punctual::sleep_until)?,
    };
    report
        .borrow_mut(py)
        .complete_early(frame, ended, deadline_ns, !lead.is_zero());
    Ok(report)
}

/// `punctual.sleep`'s compiled half: sleeps `seconds` (an int or a float, zero or more)
/// with this thread's hybrid sleeper, the GIL released, Ctrl-C raising
/// `KeyboardInterrupt`, and returns a lead early for the Python half (see [`wait`]).
#[pyfunction]
pub(crate) fn _sleep(py: Python<'_>, seconds: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
    wait(py, None, Target::after(seconds)?)
}

/// `punctual.sleep_until`'s compiled half: until `deadline`, in seconds on
/// `time.perf_counter()`'s clock; a past deadline returns at once.
#[pyfunction]
pub(crate) fn _sleep_until(py: Python<'_>, deadline: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
    let target = Target::until(Frame::get(py)?, deadline)?;
    wait(py, None, target)
}

/// `punctual.sleep_until_ns`'s compiled half: until `deadline_ns`, an int of nanoseconds on
/// `time.perf_counter_ns()`'s clock.
#[pyfunction]
pub(crate) fn _sleep_until_ns(
    py: Python<'_>,
    deadline_ns: &Bound<'_, PyAny>,
) -> PyResult<Py<PyWake>> {
    let target = Target::until_ns(Frame::get(py)?, deadline_ns)?;
    wait(py, None, target)
}

/// A waiter with a fixed strategy: `"hybrid"` (the default: native, then a learned spin
/// tail), `"native"` (no spinning) or `"spin"` (a busy wait). A hybrid sleeper learns from
/// its own sleeps: keep one per thread and reuse it.
///
/// The compiled half of `punctual.Sleeper`, which subclasses it and finishes each wait in
/// Python (see [`wait`]).
#[pyclass(name = "Sleeper", module = "punctual", subclass)]
#[derive(Debug)]
pub(crate) struct PySleeper {
    inner: Sleeper,
}

#[pymethods]
impl PySleeper {
    #[new]
    #[pyo3(signature = (strategy = "hybrid"))]
    fn new(strategy: &str) -> PyResult<PySleeper> {
        Ok(PySleeper {
            inner: Sleeper::new(strategy_of(strategy)?),
        })
    }

    /// Sleeps `seconds`, returning a lead early; see [`_sleep`].
    fn _sleep(&mut self, py: Python<'_>, seconds: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
        wait(py, Some(&mut self.inner), Target::after(seconds)?)
    }

    /// Sleeps until `deadline` (seconds, `time.perf_counter()`); see [`_sleep_until`].
    fn _sleep_until(
        &mut self,
        py: Python<'_>,
        deadline: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyWake>> {
        let target = Target::until(Frame::get(py)?, deadline)?;
        wait(py, Some(&mut self.inner), target)
    }

    /// Sleeps until `deadline_ns` (nanoseconds, `time.perf_counter_ns()`); see
    /// [`_sleep_until_ns`].
    fn _sleep_until_ns(
        &mut self,
        py: Python<'_>,
        deadline_ns: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyWake>> {
        let target = Target::until_ns(Frame::get(py)?, deadline_ns)?;
        wait(py, Some(&mut self.inner), target)
    }

    /// The strategy's name.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.inner.strategy().name()
    }

    /// The spin margin of the latest hybrid wait, in seconds.
    #[getter]
    fn margin(&self) -> f64 {
        seconds_of_ns(self.inner.margin().as_nanos() as i128)
    }

    /// The counters so far: `sleeps`, `spun`, `capped`, `native_only`, `native_late` and
    /// `spin_time` (seconds).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.inner.stats();
        let dict = PyDict::new(py);
        dict.set_item("sleeps", stats.sleeps)?;
        dict.set_item("spun", stats.spun)?;
        dict.set_item("capped", stats.capped)?;
        dict.set_item("native_only", stats.native_only)?;
        dict.set_item("native_late", stats.native_late)?;
        dict.set_item(
            "spin_time",
            seconds_of_ns(stats.spin_time.as_nanos() as i128),
        )?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("Sleeper(strategy={:?})", self.inner.strategy().name())
    }
}
