//! Waiting with the GIL released, in slices short enough for Ctrl-C.
//!
//! The library's waits resume after a signal (`EINTR`), as they must to be never early, so
//! a Python handler (SIGINT's `KeyboardInterrupt`) would only run once the whole wait is
//! over. A long wait is therefore cut into slices of at most [`SIGNAL_SLICE`], and Python's
//! pending signal handlers run between them, as `time.sleep` does on its own. The deadline
//! stays absolute, so the slices add no lateness and cannot make a wait early. The last
//! stretch, [`SIGNAL_SLICE`] to twice that, is the caller's own wait, so a hybrid sleeper's
//! spin tail plans it as it would the whole wait, and it ends with the GIL taken back
//! before the deadline (`retake.rs`).

use std::time::{Duration, Instant};

use pyo3::prelude::*;

use punctual::{Sleeper, Strategy, Wake};

use crate::retake::{last_stretch, Ended};
use crate::sys::without_gil;

/// The longest stretch between two checks for Ctrl-C. `time.sleep` answers a signal at
/// once; this answers it within one slice (two at the end of a wait).
pub(crate) const SIGNAL_SLICE: Duration = Duration::from_millis(20);

/// Waits until `deadline` (`None`: forever, until a signal handler raises) with the GIL
/// released; `finish` does the last stretch without the GIL, to the deadline or to the lead
/// before it (`retake.rs`). Slices before it sleep natively, or spin for a spinning
/// sleeper, never past `deadline - SIGNAL_SLICE`, so a slice that oversleeps does not make
/// the wait late.
///
/// # Errors
///
/// Whatever a Python signal handler raises (`KeyboardInterrupt` for Ctrl-C).
pub(crate) fn wait_until<F>(
    py: Python<'_>,
    deadline: Option<Instant>,
    strategy: Strategy,
    finish: F,
) -> PyResult<Ended>
where
    F: FnOnce(Instant) -> Wake + Send,
{
    let mut slicer: Option<Sleeper> = None;
    loop {
        let now = Instant::now();
        if let Some(deadline) = deadline {
            if deadline.saturating_duration_since(now) <= 2 * SIGNAL_SLICE {
                return Ok(last_stretch(py, deadline, strategy, finish));
            }
        }
        let slice_end = now + SIGNAL_SLICE;
        let slicer = slicer.get_or_insert_with(|| Sleeper::new(slice_strategy(strategy)));
        without_gil(py, || slicer.sleep_until(slice_end));
        py.check_signals()?;
    }
}

/// Slices of a spinning wait spin too (the caller chose to keep its CPU); every other
/// strategy sleeps the slices natively, as the hybrid would far from its deadline.
fn slice_strategy(strategy: Strategy) -> Strategy {
    match strategy {
        Strategy::Spin => Strategy::Spin,
        _ => Strategy::Native,
    }
}
