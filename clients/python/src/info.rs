//! What `python -m punctual` reports about this machine: the library's own account of its
//! timer, and how the binding maps Python's clock onto it.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::clock::Frame;
use crate::convert::seconds_of_ns;
use crate::retake::{self, GIL_SPIN_CAP};
use crate::wait::SIGNAL_SLICE;

/// The native timer as the calling thread uses it: `mechanism`, `high_resolution`,
/// `resolution` (seconds or None), `timer_slack` (seconds or None; Linux), `degraded`
/// (why it is not the best timer of this OS, or None).
#[pyfunction]
pub(crate) fn timer_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let info = punctual::timer_info();
    let seconds = |d: std::time::Duration| seconds_of_ns(d.as_nanos() as i128);
    let dict = PyDict::new(py);
    dict.set_item("mechanism", info.mechanism)?;
    dict.set_item("high_resolution", info.high_resolution)?;
    dict.set_item("resolution", info.resolution.map(seconds))?;
    dict.set_item("timer_slack", info.timer_slack.map(seconds))?;
    dict.set_item("degraded", info.degraded)?;
    Ok(dict)
}

/// How deadlines are read: `clock` (the Python function whose readings deadlines are),
/// `frame_spread_ns` (the most a deadline is moved later by the conversion to the library's
/// clock), `signal_check_interval` (seconds between checks for Ctrl-C in a long wait),
/// `gil_spin_cap` (the longest a wait spins with the GIL held before its deadline,
/// seconds), `gil_lead` (how long before its deadline this thread's next hybrid or
/// spinning wait takes the GIL back, seconds: learned, within half the cap) and
/// `python_lead` (how long before its deadline that wait returns into the package's Python
/// code, which spins the rest: learned, within the other half).
#[pyfunction]
pub(crate) fn clock_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let frame = Frame::get(py)?;
    let dict = PyDict::new(py);
    dict.set_item("clock", "time.perf_counter")?;
    dict.set_item("frame_spread_ns", frame.spread_ns())?;
    dict.set_item(
        "signal_check_interval",
        seconds_of_ns(SIGNAL_SLICE.as_nanos() as i128),
    )?;
    dict.set_item(
        "gil_spin_cap",
        seconds_of_ns(GIL_SPIN_CAP.as_nanos() as i128),
    )?;
    dict.set_item("gil_lead", seconds_of_ns(retake::lead().as_nanos() as i128))?;
    dict.set_item(
        "python_lead",
        seconds_of_ns(retake::python_lead(punctual::Strategy::Hybrid).as_nanos() as i128),
    )?;
    Ok(dict)
}
