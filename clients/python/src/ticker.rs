//! `punctual.Ticker`: the library's fixed grid as a Python iterator.
//!
//! The grid is [`punctual::Grid`], waited on the way [`punctual::Ticker::tick`] waits
//! (`due`, a sleep, `advance`), except that the sleep is sliced for Ctrl-C (`wait.rs`).

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use punctual::{Grid, MissedTickPolicy, Sleeper};

use crate::clock::Frame;
use crate::convert::{seconds_of_ns, Arg};
use crate::retake;
use crate::sleep::strategy_of;
use crate::wait::wait_until;
use crate::wake::PyTick;

/// A missed-tick policy by name.
pub(crate) fn policy_of(name: &str) -> PyResult<MissedTickPolicy> {
    match name {
        "skip" => Ok(MissedTickPolicy::Skip),
        "burst" => Ok(MissedTickPolicy::Burst),
        "delay" => Ok(MissedTickPolicy::Delay),
        _ => Err(PyValueError::new_err(format!(
            "unknown missed-tick policy {name:?} (expected \"skip\", \"burst\" or \"delay\")"
        ))),
    }
}

pub(crate) fn policy_name(policy: MissedTickPolicy) -> &'static str {
    match policy {
        MissedTickPolicy::Skip => "skip",
        MissedTickPolicy::Burst => "burst",
        MissedTickPolicy::Delay => "delay",
    }
}

/// The missed-tick policy's name from `policy=`, or from `missed=`, its name before 0.2 (kept
/// for one release, with a `DeprecationWarning`: every other client calls it `policy`).
/// Both at once is a `TypeError`; neither is `"skip"`.
pub(crate) fn policy_arg<'a>(
    py: Python<'_>,
    policy: Option<&'a str>,
    missed: Option<&'a str>,
) -> PyResult<&'a str> {
    match (policy, missed) {
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyTypeError::new_err(
            "give policy= only (missed= is its old name)",
        )),
        (None, Some(missed)) => {
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
                c"missed= is now policy= (as in every other punctual client); missed= goes in the next release",
                1,
            )?;
            Ok(missed)
        }
        (policy, None) => Ok(policy.unwrap_or("skip")),
    }
}

/// The grid's first point: `first` (seconds, `time.perf_counter()`) or one period from now.
pub(crate) fn grid_of(
    py: Python<'_>,
    period: &Bound<'_, PyAny>,
    first: Option<&Bound<'_, PyAny>>,
    missed: &str,
) -> PyResult<Grid> {
    let period = Arg("period").positive_duration(period)?;
    let policy = policy_of(missed)?;
    let first = match first {
        None => Instant::now().checked_add(period),
        Some(first) => Frame::get(py)?.instant_of(Arg("first").deadline_ns(first)?),
    }
    .ok_or_else(|| PyValueError::new_err("the ticker's first tick is past the end of the clock"))?;
    let mut grid = Grid::new(first, period).map_err(|e| PyValueError::new_err(e.to_string()))?;
    grid.set_policy(policy);
    Ok(grid)
}

/// Ticks on a fixed grid: tick `k` is due `first + k * period`, computed in integer
/// nanoseconds, so there is no drift. Iterate it (`for tick in Ticker(0.001): ...`); each
/// tick reports its index, lateness and the grid points missed before it.
///
/// `policy` decides what an overdue tick does (`missed`, its old name, still works for one
/// release, with a `DeprecationWarning`): `"skip"` (the default) waits for the next
/// grid point not yet past and counts the skipped ones, `"burst"` fires every overdue tick
/// at once, in order, `"delay"` fires at once and moves the grid to start there.
///
/// The compiled half of `punctual.Ticker`, which subclasses it and finishes each tick's
/// wait in Python (see `sleep::wait`).
#[pyclass(name = "Ticker", module = "punctual", subclass)]
#[derive(Debug)]
pub(crate) struct PyTicker {
    grid: Grid,
    sleeper: Sleeper,
}

#[pymethods]
impl PyTicker {
    #[new]
    #[pyo3(signature = (period, *, policy = None, strategy = "hybrid", first = None, missed = None))]
    fn new(
        py: Python<'_>,
        period: &Bound<'_, PyAny>,
        policy: Option<&str>,
        strategy: &str,
        first: Option<&Bound<'_, PyAny>>,
        missed: Option<&str>,
    ) -> PyResult<PyTicker> {
        let policy = policy_arg(py, policy, missed)?;
        Ok(PyTicker {
            sleeper: Sleeper::new(strategy_of(strategy)?),
            grid: grid_of(py, period, first, policy)?,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Waits for the next tick, returning a lead before it for the Python half to spin the
    /// rest (see `sleep::wait`), and reports it.
    fn _tick(&mut self, py: Python<'_>) -> PyResult<Py<PyTick>> {
        let frame = Frame::get(py)?;
        let due = self.grid.due(Instant::now());
        // Allocated before the wait, filled in after (see `sleep::wait`).
        let report = Py::new(py, PyTick::pending(due.index(), due.missed()))?;
        let strategy = self.sleeper.strategy();
        let lead = retake::python_lead(strategy);
        let deadline = due.deadline();
        let early = deadline.map(|d| d.checked_sub(lead).unwrap_or(d.min(Instant::now())));
        let sleeper = &mut self.sleeper;
        let ended = wait_until(py, early, strategy, |d| sleeper.sleep_until(d))?;
        // The Python half returns at or after the deadline: the grid moves on from there.
        self.grid
            .advance(&due, deadline.map_or(ended.woke, |d| ended.woke.max(d)));
        let deadline_ns = deadline.map_or(i128::MAX, |d| frame.ns_of(d));
        report
            .borrow_mut(py)
            .complete_early(frame, ended, deadline_ns, !lead.is_zero());
        Ok(report)
    }

    /// The period, in seconds.
    #[getter]
    fn period(&self) -> f64 {
        seconds_of_ns(self.grid.period().as_nanos() as i128)
    }

    /// The missed-tick policy's name.
    #[getter]
    fn policy(&self) -> &'static str {
        policy_name(self.grid.policy())
    }

    /// The index of the tick the next wait is for, unless it turns out overdue.
    #[getter]
    fn next_index(&self) -> u64 {
        self.grid.next_index()
    }

    /// All grid points missed so far.
    #[getter]
    fn missed(&self) -> u64 {
        self.grid.missed()
    }

    /// When tick `index` is due on the grid as it stands (seconds, `time.perf_counter()`),
    /// or `None` before the grid's anchor or past the end of the clock.
    fn deadline_of(&self, py: Python<'_>, index: u64) -> PyResult<Option<f64>> {
        let frame = Frame::get(py)?;
        Ok(self
            .grid
            .deadline_of(index)
            .map(|d| seconds_of_ns(frame.ns_of(d))))
    }

    fn __repr__(&self) -> String {
        format!(
            "Ticker(period={:?}, policy={:?}, strategy={:?})",
            self.period(),
            self.policy(),
            self.sleeper.strategy().name()
        )
    }
}
