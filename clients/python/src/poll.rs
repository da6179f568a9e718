//! `punctual.Deadline`, `punctual.poll_until` and `punctual.PollTimeout`.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyTimeoutError, PyTypeError};
use pyo3::prelude::*;

use punctual::{Deadline, PollError, Poller};

use crate::clock::Frame;
use crate::convert::{seconds_of_ns, Arg};
use crate::exit::park_if_exiting;

create_exception!(
    punctual,
    PollTimeout,
    PyTimeoutError,
    "poll_until's deadline passed with the condition still unmet. A TimeoutError, with `elapsed` (seconds from the first poll to the check that found the deadline passed) and `polls` (how many times the condition ran)."
);

/// A point in time to give up at, on the monotonic clock: `Deadline(seconds)` is `seconds`
/// from now; `Deadline.at(deadline)` takes a `time.perf_counter()` reading,
/// `Deadline.never()` never passes.
#[pyclass(name = "Deadline", module = "punctual", frozen)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyDeadline {
    inner: Deadline,
}

#[pymethods]
impl PyDeadline {
    #[new]
    fn new(seconds: &Bound<'_, PyAny>) -> PyResult<PyDeadline> {
        Ok(PyDeadline {
            inner: Deadline::after(Arg("seconds").duration(seconds)?),
        })
    }

    /// `seconds` from now.
    #[staticmethod]
    fn after(seconds: &Bound<'_, PyAny>) -> PyResult<PyDeadline> {
        PyDeadline::new(seconds)
    }

    /// At `deadline`, seconds on `time.perf_counter()`'s clock (which may be past).
    #[staticmethod]
    fn at(py: Python<'_>, deadline: &Bound<'_, PyAny>) -> PyResult<PyDeadline> {
        let ns = Arg("deadline").deadline_ns(deadline)?;
        let frame = Frame::get(py)?;
        let inner = match frame.instant_of(ns) {
            Some(instant) => Deadline::at(instant),
            // Before the start of `Instant`: passed already, as now is.
            None if ns < 0 => Deadline::at(std::time::Instant::now()),
            None => Deadline::never(),
        };
        Ok(PyDeadline { inner })
    }

    /// A deadline that never passes.
    #[staticmethod]
    fn never() -> PyDeadline {
        PyDeadline {
            inner: Deadline::never(),
        }
    }

    /// The deadline in seconds on `time.perf_counter()`'s clock, or `None` for one that
    /// never passes.
    #[getter]
    fn when(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        let frame = Frame::get(py)?;
        Ok(self.inner.instant().map(|i| seconds_of_ns(frame.ns_of(i))))
    }

    /// Seconds left: 0.0 once passed, `math.inf` for a deadline that never passes.
    #[getter]
    fn remaining(&self) -> f64 {
        if self.inner.is_never() {
            f64::INFINITY
        } else {
            seconds_of_ns(self.inner.remaining().as_nanos() as i128)
        }
    }

    /// Whether the clock has reached the deadline.
    #[getter]
    fn has_passed(&self) -> bool {
        self.inner.has_passed()
    }

    /// Whether this deadline never passes.
    #[getter]
    fn is_never(&self) -> bool {
        self.inner.is_never()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match self.when(py)? {
            Some(when) => format!("Deadline.at({when:?})"),
            None => "Deadline.never()".to_string(),
        })
    }
}

/// `timeout`: `None` (never), seconds from now, or a `Deadline`.
fn deadline_of(timeout: Option<&Bound<'_, PyAny>>) -> PyResult<Deadline> {
    match timeout {
        None => Ok(Deadline::never()),
        Some(timeout) if timeout.is_none() => Ok(Deadline::never()),
        Some(timeout) => match timeout.downcast::<PyDeadline>() {
            Ok(deadline) => Ok(deadline.get().inner),
            Err(_) => Ok(Deadline::after(Arg("timeout").duration(timeout)?)),
        },
    }
}

/// Calls `condition()` until it returns a true value, which it returns; sleeps `step`
/// seconds between calls (shortened to end at the deadline) and calls `before_sleep()`
/// before each sleep. The condition runs once more at the deadline before giving up.
///
/// Raises `PollTimeout` (a `TimeoutError`) when `timeout` (seconds, a `Deadline`, or `None`
/// for never) passes first, and whatever `condition` or `before_sleep` raises, as it is.
/// The GIL is released while it sleeps. Ctrl-C is answered before the next call of the
/// condition, so within one `step`.
#[pyfunction]
#[pyo3(signature = (condition, timeout = None, *, step = None, before_sleep = None))]
pub(crate) fn poll_until(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    timeout: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    before_sleep: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    if !condition.is_callable() {
        return Err(PyTypeError::new_err("condition must be callable"));
    }
    let before_sleep = before_sleep.filter(|hook| !hook.is_none());
    if before_sleep.is_some_and(|hook| !hook.is_callable()) {
        return Err(PyTypeError::new_err(
            "before_sleep must be callable or None",
        ));
    }
    let deadline = deadline_of(timeout)?;
    let step = match step {
        Some(step) if !step.is_none() => Arg("step").duration(step)?,
        _ => Poller::DEFAULT_STEP,
    };
    let condition = condition.clone().unbind();
    let before_sleep = before_sleep.map(|hook| hook.clone().unbind());
    // The hook cannot fail in the library's loop: its exception waits here for the next
    // check, which raises it before the condition runs again.
    let hook_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let result = py.allow_threads(|| {
        Poller::new(deadline)
            .step(step)
            .before_sleep(|| {
                if let Some(hook) = &before_sleep {
                    park_if_exiting();
                    if let Err(error) = Python::with_gil(|py| hook.call0(py)) {
                        *hook_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
                    }
                }
            })
            .until(|| {
                park_if_exiting();
                Python::with_gil(|py| {
                    if let Some(error) = hook_error.lock().unwrap_or_else(|e| e.into_inner()).take()
                    {
                        return Err(error);
                    }
                    py.check_signals()?;
                    let value = condition.call0(py)?;
                    Ok(value.is_truthy(py)?.then_some(value))
                })
            })
    });
    match result {
        Ok(value) => Ok(value),
        Err(PollError::Failed(error)) => Err(error),
        Err(PollError::TimedOut { elapsed, polls }) => Err(timeout_error(py, elapsed, polls)),
    }
}

fn timeout_error(py: Python<'_>, elapsed: Duration, polls: u64) -> PyErr {
    let message = PollError::<std::convert::Infallible>::TimedOut { elapsed, polls }.to_string();
    let error = PollTimeout::new_err(message);
    let value = error.value(py);
    let set = value
        .setattr("elapsed", seconds_of_ns(elapsed.as_nanos() as i128))
        .and_then(|()| value.setattr("polls", polls));
    match set {
        Ok(()) => error,
        Err(failed) => failed,
    }
}
