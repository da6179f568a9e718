//! `punctual._punctual`, the compiled half of the Python package `punctual`: the library's
//! sleeps, tickers, deadlines and async timers, with Python's numbers checked and converted
//! (`convert.rs`, `clock.rs`), the GIL released while waiting and Ctrl-C answered
//! (`wait.rs`) and taken back before the deadline (`retake.rs`). Every wait is the
//! library's; the binding's own timing is only when to take the GIL back.
//!
//! The Python half (`python/punctual/`) adds the asyncio coroutines, the docs' stubs,
//! `python -m punctual` and the benchmark.

#![deny(missing_debug_implementations, unsafe_code)]

mod aio;
mod clock;
mod convert;
mod exit;
mod info;
mod poll;
mod probe;
mod retake;
mod rt;
mod sleep;
#[allow(unsafe_code)]
mod sys;
mod ticker;
mod wait;
mod wake;

use pyo3::prelude::*;

#[pymodule]
fn _punctual(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    clock::Frame::get(py)?;
    // The package's version, which is the crate's (pyproject.toml repeats it; the release
    // checks that they agree).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(sleep::_sleep, m)?)?;
    m.add_function(wrap_pyfunction!(sleep::_sleep_until, m)?)?;
    m.add_function(wrap_pyfunction!(sleep::_sleep_until_ns, m)?)?;
    m.add_class::<sleep::PySleeper>()?;
    m.add_class::<wake::PyWake>()?;
    m.add_class::<wake::PyTick>()?;
    m.add_class::<ticker::PyTicker>()?;
    m.add_class::<poll::PyDeadline>()?;
    m.add_function(wrap_pyfunction!(poll::poll_until, m)?)?;
    m.add("PollTimeout", py.get_type::<poll::PollTimeout>())?;
    m.add_function(wrap_pyfunction!(info::timer_info, m)?)?;
    m.add_function(wrap_pyfunction!(info::clock_info, m)?)?;
    m.add_class::<aio::PyAsyncTimer>()?;
    m.add_class::<aio::PyAsyncInterval>()?;
    m.add_function(wrap_pyfunction!(probe::probe, m)?)?;
    m.add_function(wrap_pyfunction!(probe::cheat_sheet, m)?)?;
    m.add_class::<probe::PyProbe>()?;
    m.add_class::<probe::PyBand>()?;
    rt::register(m)?;
    m.add_function(wrap_pyfunction!(aio::pending, m)?)?;
    m.add_function(wrap_pyfunction!(aio::driver_stats, m)?)?;
    m.add_function(wrap_pyfunction!(aio::_take_wakes, m)?)?;
    let exiting = wrap_pyfunction!(exit::_exiting, m)?;
    py.import("atexit")?.call_method1("register", (exiting,))?;
    Ok(())
}
