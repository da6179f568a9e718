//! The timers behind `punctual.asyncio`: the library's futures, polled from an asyncio task.
//!
//! `punctual.asyncio` (Python) polls a [`PyAsyncTimer`] or [`PyAsyncInterval`] with its
//! event loop and a callback; while pending, the library's driver thread keeps the timer
//! and, when it fires, the waker queues the callback, which a delivering thread hands to
//! that loop with `loop.call_soon_threadsafe`, the one thread-safe way into an asyncio
//! loop. The task then polls again, and the future completes only once the clock has
//! reached its deadline.
//!
//! The driver is this module's own, with a learned spin tail: it fires a timer a learned
//! margin early and the poll that follows spins to the deadline, on the loop's thread, with
//! the GIL held. The margin covers the whole way from the driver to the task (the GIL, the
//! loop's wake-up, the task's turn) and is capped at half of each sleep.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use punctual::future::{Driver, DriverConfig, Interval, Sleep, SpinTail};
use punctual::HybridConfig;

use crate::clock::Frame;
use crate::convert::seconds_of_ns;
use crate::retake::Ended;
use crate::sleep::Target;
use crate::sys::without_gil;
use crate::ticker::grid_of;
use crate::wake::{PyTick, PyWake};

/// The share of a sleep its spin may take. The end-to-end delay here is some tens of
/// microseconds, so a quarter (the library's default) leaves sleeps of 100 us without one.
const SPIN_BUDGET: f64 = 0.5;

static DRIVER: OnceLock<Driver> = OnceLock::new();

/// This module's driver, started on first use.
fn driver() -> PyResult<&'static Driver> {
    if let Some(driver) = DRIVER.get() {
        return Ok(driver);
    }
    let tail = SpinTail::Learned(HybridConfig::new().with_budget(SPIN_BUDGET));
    let driver = Driver::new(DriverConfig::new().with_spin_tail(tail))
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    Ok(DRIVER.get_or_init(|| driver))
}

/// Timers pending in the asyncio driver now (polled, not fired, not cancelled).
#[pyfunction]
pub(crate) fn pending() -> PyResult<usize> {
    Ok(driver()?.pending())
}

/// The asyncio driver's counters: `wakes`, `spun`, `capped`, `native_only`,
/// `margin_overrun`, `spin_time` (seconds), `waits`, `max_pending`.
#[pyfunction]
pub(crate) fn driver_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let stats = driver()?.stats();
    let dict = PyDict::new(py);
    dict.set_item("wakes", stats.wakes)?;
    dict.set_item("spun", stats.spun)?;
    dict.set_item("capped", stats.capped)?;
    dict.set_item("native_only", stats.native_only)?;
    dict.set_item("margin_overrun", stats.margin_overrun)?;
    dict.set_item(
        "spin_time",
        seconds_of_ns(stats.spin_time.as_nanos() as i128),
    )?;
    dict.set_item("waits", stats.waits)?;
    dict.set_item("max_pending", stats.max_pending)?;
    Ok(dict)
}

/// Wakes an asyncio task: queues its loop and callback for the delivering thread.
///
/// The driver thread never takes the GIL: a thread that is not Python's, running Python
/// code when the interpreter exits, is ended by CPython 3.11 mid-call and crashes the
/// process. So the waker only queues, and a Python daemon thread (`punctual.asyncio`'s
/// `_deliver`, in `take_wakes`) hands each callback to its loop with
/// `loop.call_soon_threadsafe`. The spin tail's learned margin covers that extra hop.
#[derive(Debug)]
struct LoopWaker {
    event_loop: PyObject,
    callback: PyObject,
}

/// Wakes fired and not yet delivered.
#[derive(Debug, Default)]
struct Wakes {
    /// Each with the instant the driver's thread woke it.
    queue: Mutex<Vec<(Arc<LoopWaker>, Instant)>>,
    ready: Condvar,
}

static WAKES: OnceLock<Wakes> = OnceLock::new();

fn wakes() -> &'static Wakes {
    WAKES.get_or_init(Wakes::default)
}

impl Wake for LoopWaker {
    fn wake(self: Arc<Self>) {
        let wakes = wakes();
        let now = Instant::now();
        wakes
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((self, now));
        wakes.ready.notify_one();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        Arc::clone(self).wake();
    }
}

/// Blocks (without the GIL) until timers have fired, and returns their `(loop, callback,
/// woken_ns)` triples, for the delivering thread to hand each callback to its loop with
/// the `perf_counter_ns()` reading at which the driver's thread woke it (so the task can
/// tell how long the way to it took).
#[pyfunction]
pub(crate) fn _take_wakes(py: Python<'_>) -> PyResult<Vec<(PyObject, PyObject, i128)>> {
    let frame = Frame::get(py)?;
    let fired = without_gil(py, || {
        let wakes = wakes();
        let mut queue = wakes.queue.lock().unwrap_or_else(PoisonError::into_inner);
        while queue.is_empty() {
            queue = wakes
                .ready
                .wait(queue)
                .unwrap_or_else(PoisonError::into_inner);
        }
        std::mem::take(&mut *queue)
    });
    Ok(fired
        .iter()
        .map(|(w, at)| {
            (
                w.event_loop.clone_ref(py),
                w.callback.clone_ref(py),
                frame.ns_of(*at),
            )
        })
        .collect())
}

fn context_waker(event_loop: &Bound<'_, PyAny>, callback: &Bound<'_, PyAny>) -> Waker {
    Waker::from(Arc::new(LoopWaker {
        event_loop: event_loop.clone().unbind(),
        callback: callback.clone().unbind(),
    }))
}

/// One asyncio sleep: a library `Sleep` until it completes or is closed.
#[pyclass(name = "_AsyncTimer", module = "punctual._punctual")]
#[derive(Debug)]
pub(crate) struct PyAsyncTimer {
    sleep: Option<Sleep>,
    written_ns: Option<i128>,
}

impl PyAsyncTimer {
    fn of(target: Target) -> PyResult<PyAsyncTimer> {
        let driver = driver()?;
        let (sleep, written_ns) = match target {
            Target::At(instant) => (driver.sleep_until(instant), None),
            Target::Past(ns) => (driver.sleep_until(Instant::now()), Some(ns)),
            Target::Never => (driver.sleep(std::time::Duration::MAX), None),
        };
        Ok(PyAsyncTimer {
            sleep: Some(sleep),
            written_ns,
        })
    }
}

#[pymethods]
impl PyAsyncTimer {
    #[staticmethod]
    fn after(seconds: &Bound<'_, PyAny>) -> PyResult<PyAsyncTimer> {
        driver()?; // started before the clock is read: its start-up is no part of the sleep
        PyAsyncTimer::of(Target::after(seconds)?)
    }

    #[staticmethod]
    fn until(py: Python<'_>, deadline: &Bound<'_, PyAny>) -> PyResult<PyAsyncTimer> {
        PyAsyncTimer::of(Target::until(Frame::get(py)?, deadline)?)
    }

    #[staticmethod]
    fn until_ns(py: Python<'_>, deadline_ns: &Bound<'_, PyAny>) -> PyResult<PyAsyncTimer> {
        PyAsyncTimer::of(Target::until_ns(Frame::get(py)?, deadline_ns)?)
    }

    /// The wake once the deadline has passed (after a spin within the margin), else `None`
    /// with `callback` handed to `event_loop` when the timer fires.
    fn poll(
        &mut self,
        py: Python<'_>,
        event_loop: &Bound<'_, PyAny>,
        callback: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyWake>> {
        let Some(sleep) = self.sleep.as_mut() else {
            return Ok(None);
        };
        let waker = context_waker(event_loop, callback);
        match Pin::new(sleep).poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(wake) => {
                self.sleep = None;
                Ok(Some(PyWake::of(
                    Frame::get(py)?,
                    Ended::held(wake),
                    self.written_ns,
                )))
            }
            Poll::Pending => Ok(None),
        }
    }

    /// The deadline in nanoseconds on `perf_counter_ns()`'s clock (`None` once complete or
    /// closed).
    #[getter]
    fn deadline_ns(&self, py: Python<'_>) -> PyResult<Option<i128>> {
        let Some(sleep) = self.sleep.as_ref() else {
            return Ok(None);
        };
        Ok(Some(Frame::get(py)?.ns_of(sleep.deadline())))
    }

    /// Removes the timer from the driver, if still pending; polls after it return `None`.
    fn close(&mut self) {
        self.sleep = None;
    }
}

/// An asyncio interval: a library `Interval` on this module's driver.
#[pyclass(name = "_AsyncInterval", module = "punctual._punctual")]
#[derive(Debug)]
pub(crate) struct PyAsyncInterval {
    interval: Option<Interval>,
}

#[pymethods]
impl PyAsyncInterval {
    #[new]
    #[pyo3(signature = (period, *, policy = "skip", first = None))]
    fn new(
        py: Python<'_>,
        period: &Bound<'_, PyAny>,
        policy: &str,
        first: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyAsyncInterval> {
        let driver = driver()?; // before the grid's first tick is read off the clock
        let grid = grid_of(py, period, first, policy)?;
        let first = grid.deadline_of(0).unwrap_or_else(Instant::now);
        let interval = driver
            .interval_at(first, grid.period())
            .map_err(|e| PyValueError::new_err(e.to_string()))?
            .with_policy(grid.policy());
        Ok(PyAsyncInterval {
            interval: Some(interval),
        })
    }

    /// The next tick once due, else `None` with `callback` handed to `event_loop` when the
    /// timer fires.
    fn poll_tick(
        &mut self,
        py: Python<'_>,
        event_loop: &Bound<'_, PyAny>,
        callback: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyTick>> {
        let Some(interval) = self.interval.as_mut() else {
            return Ok(None);
        };
        let waker = context_waker(event_loop, callback);
        match interval.poll_tick(&mut Context::from_waker(&waker)) {
            Poll::Ready(tick) => Ok(Some(PyTick::new(Frame::get(py)?, tick))),
            Poll::Pending => Ok(None),
        }
    }

    /// The next tick's deadline in nanoseconds on `perf_counter_ns()`'s clock (`None` once
    /// closed, or past the end of the clock).
    #[getter]
    fn next_deadline_ns(&self, py: Python<'_>) -> PyResult<Option<i128>> {
        let Some(interval) = self.interval.as_ref() else {
            return Ok(None);
        };
        let frame = Frame::get(py)?;
        Ok(interval
            .deadline_of(interval.next_index())
            .map(|at| frame.ns_of(at)))
    }

    /// The period, in seconds.
    #[getter]
    fn period(&self) -> Option<f64> {
        self.interval
            .as_ref()
            .map(|i| seconds_of_ns(i.period().as_nanos() as i128))
    }

    /// Removes the interval's timer from the driver; polls after it return `None`.
    fn close(&mut self) {
        self.interval = None;
    }
}
