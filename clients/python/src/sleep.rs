//! `punctual.sleep`, `sleep_until`, `sleep_until_ns` and `punctual.Sleeper`.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use punctual::{Sleeper, Strategy};

use crate::clock::Frame;
use crate::convert::{seconds_of_ns, Arg};
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
/// `punctual::sleep` uses), the GIL released, Ctrl-C answered. The report is allocated
/// before the wait, so that filling it in is all that follows the deadline.
pub(crate) fn wait(
    py: Python<'_>,
    sleeper: Option<&mut Sleeper>,
    target: Target,
) -> PyResult<Py<PyWake>> {
    let frame = Frame::get(py)?;
    let report = Py::new(py, PyWake::pending())?;
    let strategy = sleeper.as_ref().map_or(Strategy::Hybrid, |s| s.strategy());
    let (deadline, written_ns) = match target {
        Target::At(instant) => (Some(instant), None),
        // Due already: any instant not after now stands in, and the report keeps the
        // deadline as written.
        Target::Past(ns) => (Some(Instant::now()), Some(ns)),
        Target::Never => (None, None),
    };
    let ended = match sleeper {
        Some(sleeper) => wait_until(py, deadline, strategy, |d| sleeper.sleep_until(d))?,
        None => wait_until(py, deadline, strategy, punctual::sleep_until)?,
    };
    report.borrow_mut(py).complete(frame, ended, written_ns);
    Ok(report)
}

/// Sleeps `seconds` (an int or a float, zero or more) and reports the wake; never returns
/// early. Uses this thread's hybrid sleeper: a native sleep, then a short spin whose length
/// it learns. The GIL is released while it waits; Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
pub(crate) fn sleep(py: Python<'_>, seconds: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
    wait(py, None, Target::after(seconds)?)
}

/// Sleeps until `deadline`, in seconds on `time.perf_counter()`'s clock (on Linux and macOS
/// also `time.monotonic()`'s); a past deadline returns at once. Never returns before
/// `time.perf_counter() >= deadline`.
#[pyfunction]
pub(crate) fn sleep_until(py: Python<'_>, deadline: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
    let target = Target::until(Frame::get(py)?, deadline)?;
    wait(py, None, target)
}

/// Sleeps until `deadline_ns`, an int of nanoseconds on `time.perf_counter_ns()`'s clock.
#[pyfunction]
pub(crate) fn sleep_until_ns(
    py: Python<'_>,
    deadline_ns: &Bound<'_, PyAny>,
) -> PyResult<Py<PyWake>> {
    let target = Target::until_ns(Frame::get(py)?, deadline_ns)?;
    wait(py, None, target)
}

/// A waiter with a fixed strategy: `"hybrid"` (the default: native, then a learned spin
/// tail), `"native"` (no spinning) or `"spin"` (a busy wait). A hybrid sleeper learns from
/// its own sleeps: keep one per thread and reuse it.
#[pyclass(name = "Sleeper", module = "punctual")]
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

    /// Sleeps `seconds`; see `punctual.sleep`.
    fn sleep(&mut self, py: Python<'_>, seconds: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
        wait(py, Some(&mut self.inner), Target::after(seconds)?)
    }

    /// Sleeps until `deadline` (seconds, `time.perf_counter()`); see `punctual.sleep_until`.
    fn sleep_until(&mut self, py: Python<'_>, deadline: &Bound<'_, PyAny>) -> PyResult<Py<PyWake>> {
        let target = Target::until(Frame::get(py)?, deadline)?;
        wait(py, Some(&mut self.inner), target)
    }

    /// Sleeps until `deadline_ns` (nanoseconds, `time.perf_counter_ns()`).
    fn sleep_until_ns(
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
