//! The real-time controls `punctual.rt` re-exports: the calling thread's scheduling
//! (`SCHED_FIFO` and back), its timer slack and CPU affinity, `mlockall`, and the
//! `/dev/cpu_dma_latency` hold as a context manager, over the library's [`punctual::rt`]. Refusals raise `punctual.rt`'s exceptions,
//! `OSError` subclasses (`PermissionError` for a missing privilege) whose message is the
//! library's, naming the fix.

use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};

use punctual::rt::{self, DmaLatencyGuard, RtError, Scheduling};

use crate::convert::{seconds_of_ns, Arg};

create_exception!(
    punctual.rt,
    RealtimeError,
    PyOSError,
    "A real-time control the OS refused or failed; the message says what, and how to fix it. An OSError."
);

create_exception!(
    punctual.rt,
    RealtimeUnsupportedError,
    RealtimeError,
    "This platform has no such control (mlockall off Linux, /dev/cpu_dma_latency without the device)."
);

static PERMISSION_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// `RealtimePermissionError(RealtimeError, PermissionError)`: refused for lack of a
/// privilege. Made with `type()`, since an exception of two bases is beyond
/// `create_exception!`.
pub(crate) fn permission_error(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PERMISSION_ERROR
        .get_or_try_init(py, || {
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<RealtimeError>().into_any(),
                    py.get_type::<PyPermissionError>().into_any(),
                ],
            )?;
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "punctual.rt")?;
            namespace.set_item(
                "__doc__",
                "The OS refused for lack of privilege; the message names the ways to grant it \
                 (CAP_SYS_NICE, ulimit -r, CAP_IPC_LOCK, ulimit -l, access to /dev/cpu_dma_latency). \
                 A PermissionError and a RealtimeError.",
            )?;
            let made = py.get_type::<PyType>().call1((
                "RealtimePermissionError",
                bases,
                namespace,
            ))?;
            Ok(made.downcast_into::<PyType>()?.unbind())
        })
        .map(|ty| ty.bind(py))
}

/// The exception for `error`, with the library's message.
fn raised(py: Python<'_>, error: RtError) -> PyErr {
    let message = error.to_string();
    match error {
        RtError::PermissionDenied { .. } => match permission_error(py) {
            Ok(ty) => PyErr::from_type(ty.clone(), message),
            Err(failed) => failed,
        },
        RtError::InvalidPriority { .. }
        | RtError::InvalidSlack { .. }
        | RtError::InvalidAffinity { .. } => PyValueError::new_err(message),
        RtError::Unsupported { .. } => RealtimeUnsupportedError::new_err(message),
        _ => RealtimeError::new_err(message),
    }
}

/// A thread's scheduling: `policy` as the OS names it (`"SCHED_FIFO"`, `"SCHED_OTHER"`,
/// `"THREAD_PRIORITY_TIME_CRITICAL"`, ...), its `priority`, and whether it is `realtime`.
#[pyclass(name = "Scheduling", module = "punctual.rt", frozen)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyScheduling {
    inner: Scheduling,
}

#[pymethods]
impl PyScheduling {
    /// The policy as the OS names it, e.g. `"SCHED_FIFO"`.
    #[getter]
    fn policy(&self) -> String {
        self.inner.policy.to_string()
    }

    /// The priority within the policy (1 to 99 for `SCHED_FIFO` on Linux, 0 for the
    /// time-sharing policies).
    #[getter]
    fn priority(&self) -> i32 {
        self.inner.priority
    }

    /// Whether the policy runs ahead of every time-sharing thread.
    #[getter]
    fn realtime(&self) -> bool {
        self.inner.policy.is_realtime()
    }

    fn __repr__(&self) -> String {
        format!(
            "Scheduling(policy={:?}, priority={})",
            self.policy(),
            self.inner.priority
        )
    }
}

fn scheduling(py: Python<'_>, result: Result<Scheduling, RtError>) -> PyResult<PyScheduling> {
    result
        .map(|inner| PyScheduling { inner })
        .map_err(|e| raised(py, e))
}

/// The real-time priorities `set_realtime_priority` accepts, `(low, high)`: (1, 99)
/// everywhere (macOS and Windows ignore the number).
#[pyfunction]
pub(crate) fn priority_range() -> (i32, i32) {
    let range = rt::priority_range();
    (*range.start(), *range.end())
}

/// The calling thread's scheduling policy and priority.
#[pyfunction]
pub(crate) fn current_scheduling(py: Python<'_>) -> PyResult<PyScheduling> {
    scheduling(py, rt::current_scheduling())
}

/// Runs the calling thread under the OS's real-time scheduling at `priority` (Linux
/// `SCHED_FIFO`, raising the soft `RLIMIT_RTPRIO` to the hard limit first; Windows
/// time-critical; macOS time-constraint) and returns the scheduling now in force.
///
/// Raises `ValueError` outside `priority_range()` (nothing changed), `RealtimePermissionError`
/// when the OS refuses (the message names the fixes: `CAP_SYS_NICE`, `ulimit -r`, `rtprio` in
/// limits.conf, `LimitRTPRIO=`), `RealtimeUnsupportedError` where there is no such control.
#[pyfunction]
pub(crate) fn set_realtime_priority(py: Python<'_>, priority: i32) -> PyResult<PyScheduling> {
    scheduling(py, rt::set_realtime_priority(priority))
}

/// Returns the calling thread to the OS's default time-sharing scheduling, and returns the
/// scheduling now in force.
#[pyfunction]
pub(crate) fn set_normal_scheduling(py: Python<'_>) -> PyResult<PyScheduling> {
    scheduling(py, rt::set_normal_scheduling())
}

/// The calling thread's timer slack in force, in seconds: how much later than asked Linux
/// may fire its timers (0 under a real-time policy). Raises `RealtimeUnsupportedError` off
/// Linux.
#[pyfunction]
pub(crate) fn timer_slack(py: Python<'_>) -> PyResult<f64> {
    rt::timer_slack()
        .map(|slack| seconds_of_ns(slack.as_nanos() as i128))
        .map_err(|e| raised(py, e))
}

/// Sets the calling thread's timer slack to `slack` seconds, rounded up to whole
/// nanoseconds (1e-9 is the finest). A thread under a real-time policy keeps a slack of 0.
///
/// Raises `ValueError` for zero (which Linux would take as "back to the default"), a
/// negative or non-finite value, or more than the OS holds; `RealtimeUnsupportedError` off
/// Linux.
#[pyfunction]
pub(crate) fn set_timer_slack(py: Python<'_>, slack: &Bound<'_, PyAny>) -> PyResult<()> {
    let slack = Arg("slack").duration(slack)?;
    rt::set_timer_slack(slack).map_err(|e| raised(py, e))
}

/// Restricts the calling thread to `cpus`, an iterable of CPU numbers from 0; all or
/// nothing.
///
/// Raises `ValueError` for no CPU at all, a negative number, or CPUs that do not exist, are
/// offline or are outside the process's CPU set (the affinity is unchanged);
/// `RealtimeUnsupportedError` on macOS, whose affinity tags are only hints.
#[pyfunction]
pub(crate) fn set_affinity(py: Python<'_>, cpus: &Bound<'_, PyAny>) -> PyResult<()> {
    let mut numbers = Vec::new();
    for cpu in cpus.try_iter()? {
        let cpu = cpu?;
        let number: i64 = cpu.extract()?;
        let number = usize::try_from(number).map_err(|_| {
            PyValueError::new_err(format!("cpus must be CPU numbers from 0; got {number}"))
        })?;
        numbers.push(number);
    }
    rt::set_affinity(&numbers).map_err(|e| raised(py, e))
}

/// The CPUs the calling thread may run on, in increasing order.
#[pyfunction]
pub(crate) fn available_cpus(py: Python<'_>) -> PyResult<Vec<usize>> {
    rt::available_cpus().map_err(|e| raised(py, e))
}

/// Locks all of the process's memory, present and future, into RAM (`mlockall`), so that no
/// wake-up waits for a page to be read back. Raises `RealtimePermissionError` naming the
/// fixes (`CAP_IPC_LOCK`, `ulimit -l`, `memlock` in limits.conf, `LimitMEMLOCK=`),
/// `RealtimeUnsupportedError` off Linux.
#[pyfunction]
pub(crate) fn lock_memory(py: Python<'_>) -> PyResult<()> {
    rt::lock_memory().map_err(|e| raised(py, e))
}

/// Undoes `lock_memory()`.
#[pyfunction]
pub(crate) fn unlock_memory(py: Python<'_>) -> PyResult<()> {
    rt::unlock_memory().map_err(|e| raised(py, e))
}

/// A held request that keeps every CPU out of idle states slower to leave than `latency`
/// seconds (Linux `/dev/cpu_dma_latency`), from `dma_latency(latency)` until `release()` or
/// the end of its `with` block.
#[pyclass(name = "DmaLatency", module = "punctual.rt", frozen)]
#[derive(Debug)]
pub(crate) struct PyDmaLatency {
    guard: Mutex<Option<DmaLatencyGuard>>,
    latency_ns: u128,
}

#[pymethods]
impl PyDmaLatency {
    /// The latency requested, in seconds (rounded down to whole microseconds).
    #[getter]
    fn latency(&self) -> f64 {
        seconds_of_ns(self.latency_ns as i128)
    }

    /// Whether the request still holds.
    #[getter]
    fn held(&self) -> bool {
        self.guard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Withdraws the request; again does nothing.
    fn release(&self) {
        *self.guard.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Withdraws the request at the end of the `with` block; exceptions pass on.
    fn __exit__(
        &self,
        exc_type: &Bound<'_, PyAny>,
        exc_value: &Bound<'_, PyAny>,
        traceback: &Bound<'_, PyAny>,
    ) {
        let _ = (exc_type, exc_value, traceback);
        self.release();
    }

    fn __repr__(&self) -> String {
        format!(
            "DmaLatency(latency={:?}, held={})",
            self.latency(),
            if self.held() { "True" } else { "False" }
        )
    }
}

/// Requests at most `latency` seconds of CPU idle-exit latency (0 keeps CPUs polling) until
/// the returned request is released: `with punctual.rt.dma_latency(0): ...`.
///
/// Raises `ValueError` for a negative latency, `RealtimePermissionError` when
/// `/dev/cpu_dma_latency` is not writable (root only by default), `RealtimeUnsupportedError`
/// without that device or off Linux.
#[pyfunction]
pub(crate) fn dma_latency(py: Python<'_>, latency: &Bound<'_, PyAny>) -> PyResult<PyDmaLatency> {
    let latency = Arg("latency").duration(latency)?;
    let guard = DmaLatencyGuard::new(latency).map_err(|e| raised(py, e))?;
    Ok(PyDmaLatency {
        latency_ns: guard.latency().as_nanos(),
        guard: Mutex::new(Some(guard)),
    })
}

/// Adds the controls and their exceptions to the compiled module, for `punctual.rt`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RealtimeError", py.get_type::<RealtimeError>())?;
    m.add("RealtimePermissionError", permission_error(py)?)?;
    m.add(
        "RealtimeUnsupportedError",
        py.get_type::<RealtimeUnsupportedError>(),
    )?;
    m.add_class::<PyScheduling>()?;
    m.add_class::<PyDmaLatency>()?;
    m.add_function(wrap_pyfunction!(priority_range, m)?)?;
    m.add_function(wrap_pyfunction!(current_scheduling, m)?)?;
    m.add_function(wrap_pyfunction!(set_realtime_priority, m)?)?;
    m.add_function(wrap_pyfunction!(set_normal_scheduling, m)?)?;
    m.add_function(wrap_pyfunction!(timer_slack, m)?)?;
    m.add_function(wrap_pyfunction!(set_timer_slack, m)?)?;
    m.add_function(wrap_pyfunction!(set_affinity, m)?)?;
    m.add_function(wrap_pyfunction!(available_cpus, m)?)?;
    m.add_function(wrap_pyfunction!(lock_memory, m)?)?;
    m.add_function(wrap_pyfunction!(unlock_memory, m)?)?;
    m.add_function(wrap_pyfunction!(dma_latency, m)?)?;
    Ok(())
}
