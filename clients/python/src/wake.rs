//! What a wait reports to Python: [`PyWake`] (`punctual.Wake`) and [`PyTick`] (`punctual.Tick`).

use pyo3::prelude::*;

use crate::clock::Frame;
use crate::convert::seconds_of_ns;

/// The report of one wait, on `time.perf_counter()`'s clock: when it was due, the reading
/// that ended it (never before the deadline), how late that was and how long it spun.
#[pyclass(name = "Wake", module = "punctual", frozen)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyWake {
    deadline_ns: i128,
    woke_ns: i128,
    spun_ns: i128,
}

impl PyWake {
    /// `wake` in the frame; `deadline_ns`, when given, is the deadline as the caller wrote it
    /// (a past one `Instant` cannot hold).
    pub(crate) fn new(frame: &Frame, wake: punctual::Wake, deadline_ns: Option<i128>) -> PyWake {
        let woke_ns = frame.ns_of(wake.woke());
        let deadline_ns = deadline_ns.unwrap_or_else(|| frame.ns_of(wake.deadline()));
        PyWake {
            deadline_ns,
            // Equal or later by construction (the frame keeps order); `max` keeps the promise
            // that lateness is never negative in plain sight.
            woke_ns: woke_ns.max(deadline_ns),
            spun_ns: wake.spun().as_nanos() as i128,
        }
    }
}

#[pymethods]
impl PyWake {
    /// The deadline, in seconds on `time.perf_counter()`'s clock.
    #[getter]
    fn deadline(&self) -> f64 {
        seconds_of_ns(self.deadline_ns)
    }

    /// The deadline, in nanoseconds on `time.perf_counter_ns()`'s clock.
    #[getter]
    fn deadline_ns(&self) -> i128 {
        self.deadline_ns
    }

    /// The clock reading that ended the wait (seconds, `time.perf_counter()`); never before
    /// the deadline.
    #[getter]
    fn woke(&self) -> f64 {
        seconds_of_ns(self.woke_ns)
    }

    /// The reading that ended the wait, in nanoseconds (`time.perf_counter_ns()`).
    #[getter]
    fn woke_ns(&self) -> i128 {
        self.woke_ns
    }

    /// How late the wait ended, in seconds: `woke - deadline`, never negative.
    #[getter]
    fn lateness(&self) -> f64 {
        seconds_of_ns(self.lateness_ns())
    }

    /// How late the wait ended, in nanoseconds.
    #[getter]
    fn lateness_ns(&self) -> i128 {
        self.woke_ns - self.deadline_ns
    }

    /// How long the wait busy-spun, in seconds (zero for a purely native wait).
    #[getter]
    fn spun(&self) -> f64 {
        seconds_of_ns(self.spun_ns)
    }

    /// How long the wait busy-spun, in nanoseconds.
    #[getter]
    fn spun_ns(&self) -> i128 {
        self.spun_ns
    }

    fn __repr__(&self) -> String {
        format!(
            "Wake(deadline={:?}, lateness_ns={}, spun_ns={})",
            self.deadline(),
            self.lateness_ns(),
            self.spun_ns
        )
    }
}

/// One tick of a `Ticker` or an asyncio `interval`: its index on the grid, how many grid
/// points were missed just before it, and the wait's report.
#[pyclass(name = "Tick", module = "punctual", frozen)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyTick {
    index: u64,
    missed: u64,
    wake: PyWake,
}

impl PyTick {
    pub(crate) fn new(frame: &Frame, tick: punctual::Tick) -> PyTick {
        PyTick::from_parts(frame, tick.index(), tick.missed(), tick.wake())
    }

    pub(crate) fn from_parts(
        frame: &Frame,
        index: u64,
        missed: u64,
        wake: punctual::Wake,
    ) -> PyTick {
        PyTick {
            index,
            missed,
            wake: PyWake::new(frame, wake, None),
        }
    }
}

#[pymethods]
impl PyTick {
    /// The tick's number on the grid: tick `k` is due `k` periods after tick 0 (until the
    /// `"delay"` policy moves the grid).
    #[getter]
    fn index(&self) -> u64 {
        self.index
    }

    /// How many grid points passed without a tick just before this one.
    #[getter]
    fn missed(&self) -> u64 {
        self.missed
    }

    /// When the tick was due (seconds, `time.perf_counter()`).
    #[getter]
    fn deadline(&self) -> f64 {
        self.wake.deadline()
    }

    /// When the tick was due, in nanoseconds (`time.perf_counter_ns()`).
    #[getter]
    fn deadline_ns(&self) -> i128 {
        self.wake.deadline_ns
    }

    /// How late the tick fired, in seconds.
    #[getter]
    fn lateness(&self) -> f64 {
        self.wake.lateness()
    }

    /// How late the tick fired, in nanoseconds.
    #[getter]
    fn lateness_ns(&self) -> i128 {
        self.wake.lateness_ns()
    }

    /// The full report of the tick's wait.
    #[getter]
    fn wake(&self) -> PyWake {
        self.wake
    }

    fn __repr__(&self) -> String {
        format!(
            "Tick(index={}, missed={}, lateness_ns={})",
            self.index,
            self.missed,
            self.wake.lateness_ns()
        )
    }
}
