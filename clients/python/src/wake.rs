//! What a wait reports to Python: [`PyWake`] (`punctual.Wake`) and [`PyTick`] (`punctual.Tick`).
//!
//! A blocking wait allocates its report before it lets the GIL go and fills it in after
//! (`complete`), so that between the reading that ends the wait and the return into
//! Python there are only stores and one more reading: the caller's, [`PyWake::woke_ns`].
//! That is why the classes are not `frozen`; Python has no setter for any field.
//!
//! A blocking hybrid or spinning wait ends in the package's Python code: the binding
//! returns a lead before the deadline ([`crate::retake::python_lead`]) with the report
//! filled in by [`PyWake::complete_early`], and the Python half spins on
//! `time.perf_counter_ns()` to the deadline, handing each reading to `_arrive`. Every
//! reading, the last included, takes the same path (a store, and a comparison with the
//! deadline), run hot by the spin: nothing the spin did not run lies between the reading
//! that ends the wait and the return into the caller's code, since code first run after a
//! long sleep costs microseconds on cold caches. What the readings imply (the lateness,
//! the spin, what the way in cost) is worked out when a getter reads it.

use std::time::Instant;

use pyo3::prelude::*;

use crate::clock::Frame;
use crate::convert::seconds_of_ns;
use crate::retake::Ended;

/// The report of one wait, on `time.perf_counter()`'s clock: when it was due, when the
/// caller got control back (`woke`, `lateness`), the reading that ended the wait itself
/// (`sleeper_woke`, `sleeper_lateness`), how long it spun, and how the GIL came back.
#[pyclass(name = "Wake", module = "punctual")]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PyWake {
    deadline_ns: i128,
    sleeper_woke_ns: i128,
    woke_ns: i128,
    spun_ns: i128,
    gil_spun_ns: i128,
    gil_wait_ns: i128,
    gil_late: bool,
    /// The report waits for `_arrive`, the Python half's readings.
    arriving: bool,
    /// The binding returned a lead before the deadline, and the Python half spins the rest.
    led: bool,
    /// The binding's last reading, as it returned into Python (set by `complete_early`).
    returned_ns: i128,
    /// The Python half's readings so far, and its latest (`woke_ns` until it settles).
    readings: u32,
}

impl PyWake {
    /// The report of a wait that has not ended yet, for [`PyWake::complete`].
    pub(crate) fn pending() -> PyWake {
        PyWake::default()
    }

    /// The report of `ended`, read off the clock now.
    pub(crate) fn of(frame: &Frame, ended: Ended, deadline_ns: Option<i128>) -> PyWake {
        let mut wake = PyWake::pending();
        wake.complete(frame, ended, deadline_ns);
        wake
    }

    /// Fills the report in with `ended` and, last, the caller's reading. `deadline_ns`,
    /// when given, is the deadline as the caller wrote it (a past one `Instant` cannot hold).
    pub(crate) fn complete(&mut self, frame: &Frame, ended: Ended, deadline_ns: Option<i128>) {
        let deadline_ns = deadline_ns.unwrap_or_else(|| frame.ns_of(ended.deadline));
        self.deadline_ns = deadline_ns;
        // Equal or later by construction (the frame keeps order); `max` keeps the promise
        // that lateness is never negative in plain sight.
        self.sleeper_woke_ns = frame.ns_of(ended.woke).max(deadline_ns);
        self.spun_ns = ended.spun.as_nanos() as i128;
        self.gil_spun_ns = ended.gil_spun.as_nanos() as i128;
        self.gil_wait_ns = ended.gil_wait.as_nanos() as i128;
        self.gil_late = ended.gil_late;
        self.woke_ns = frame.ns_of(Instant::now()).max(self.sleeper_woke_ns);
    }

    /// Fills in the report of a wait the binding ended early for the Python half to finish
    /// ([`PyWake::arrive`]): due at `deadline_ns`, as the caller wrote it or the binding
    /// computed it; `led` when the binding returned a lead before it. Until the Python
    /// half's last reading, `woke` is the binding's, which may be before the deadline.
    pub(crate) fn complete_early(
        &mut self,
        frame: &Frame,
        ended: Ended,
        deadline_ns: i128,
        led: bool,
    ) {
        self.deadline_ns = deadline_ns;
        self.sleeper_woke_ns = frame.ns_of(ended.woke);
        self.spun_ns = ended.spun.as_nanos() as i128;
        self.gil_spun_ns = ended.gil_spun.as_nanos() as i128;
        self.gil_wait_ns = ended.gil_wait.as_nanos() as i128;
        self.gil_late = ended.gil_late;
        self.arriving = true;
        self.led = led;
        self.readings = 0;
        self.returned_ns = frame.ns_of(Instant::now()).max(self.sleeper_woke_ns);
        self.woke_ns = self.returned_ns;
    }

    /// One reading of the Python half's spin, `now_ns` on `time.perf_counter_ns()`'s clock:
    /// the spin calls this with every reading, the one at or after the deadline last, which
    /// settles the report; later calls change nothing. The second reading tells how long
    /// the way into Python and the spin's first, cold turn took, which the next wait's
    /// lead is learned from ([`crate::retake::record_into_python`]): on the spin's path,
    /// before the deadline, where it costs the caller nothing. A first reading already at
    /// the deadline is learned from instead: the lead was short of the way in alone, and a
    /// lead learned only from second readings would never grow out of that.
    pub(crate) fn arrive(&mut self, now_ns: i128) {
        if !self.arriving {
            return;
        }
        self.woke_ns = now_ns;
        self.readings = self.readings.saturating_add(1);
        self.arriving = now_ns < self.deadline_ns;
        // The second reading, or a first that already settles the wait (the lead was too
        // short for even that one: it must still grow).
        if self.led && (self.readings == 2 || (self.readings == 1 && !self.arriving)) {
            let way_in = u64::try_from(now_ns - self.returned_ns).unwrap_or(0);
            crate::retake::record_into_python(std::time::Duration::from_nanos(way_in));
        }
    }

    /// The report as its getters show it: once the Python half has settled it, its last
    /// reading is when the caller got control back, and a wait the binding ended before
    /// its deadline ended there, its Python spin included; any other keeps the binding's
    /// own reading as `sleeper_woke`. Never earlier than the deadline.
    fn settled(&self) -> PyWake {
        let mut wake = *self;
        if wake.readings == 0 {
            return wake;
        }
        let woke_ns = wake.woke_ns.max(wake.returned_ns).max(wake.deadline_ns);
        // Late by the GIL only when it came back after the deadline itself, not after the
        // lead the binding ended early by.
        wake.gil_late = wake.gil_late && wake.returned_ns > wake.deadline_ns;
        // The binding ended before the deadline: the Python spin ended the wait, and spun.
        if wake.sleeper_woke_ns < wake.deadline_ns {
            let spun = woke_ns - wake.returned_ns;
            wake.spun_ns += spun;
            wake.gil_spun_ns += spun;
            wake.sleeper_woke_ns = woke_ns;
        }
        wake.sleeper_woke_ns = wake.sleeper_woke_ns.max(wake.deadline_ns);
        wake.woke_ns = woke_ns.max(wake.sleeper_woke_ns);
        wake
    }
}

#[pymethods]
impl PyWake {
    /// One reading of the Python half's spin (see the module doc).
    fn _arrive(&mut self, now_ns: i64) {
        self.arrive(now_ns.into());
    }

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

    /// When the caller got control back (seconds, `time.perf_counter()`): the last reading
    /// of the package's Python spin, the first at or after the deadline, just before the
    /// return into the caller's code (for an asyncio wait, the binding's last reading).
    /// Never before the deadline, nor before `sleeper_woke`.
    #[getter]
    fn woke(&self) -> f64 {
        seconds_of_ns(self.settled().woke_ns)
    }

    /// When the caller got control back, in nanoseconds (`time.perf_counter_ns()`).
    #[getter]
    fn woke_ns(&self) -> i128 {
        self.settled().woke_ns
    }

    /// How late the caller got control back, in seconds: `woke - deadline`, never
    /// negative. A `time.perf_counter()` read right after the call is later still by the
    /// interpreter's return from the call and the read itself.
    #[getter]
    fn lateness(&self) -> f64 {
        seconds_of_ns(self.lateness_ns())
    }

    /// How late the caller got control back, in nanoseconds.
    #[getter]
    fn lateness_ns(&self) -> i128 {
        self.settled().woke_ns - self.deadline_ns
    }

    /// The clock reading that ended the wait itself, the first at or after the deadline
    /// (seconds, `time.perf_counter()`): the binding's, before the way back into Python,
    /// for a native wait; the end of the package's Python spin (then `woke`) for a hybrid
    /// or spinning one.
    #[getter]
    fn sleeper_woke(&self) -> f64 {
        seconds_of_ns(self.settled().sleeper_woke_ns)
    }

    /// The reading that ended the wait itself, in nanoseconds.
    #[getter]
    fn sleeper_woke_ns(&self) -> i128 {
        self.settled().sleeper_woke_ns
    }

    /// How late the wait itself ended, in seconds: `sleeper_woke - deadline`, never
    /// negative and never more than `lateness`. (`lateness` reported this reading until it
    /// became the caller's.)
    #[getter]
    fn sleeper_lateness(&self) -> f64 {
        seconds_of_ns(self.sleeper_lateness_ns())
    }

    /// How late the wait itself ended, in nanoseconds.
    #[getter]
    fn sleeper_lateness_ns(&self) -> i128 {
        self.settled().sleeper_woke_ns - self.deadline_ns
    }

    /// How long the wait busy-spun, in seconds, with the GIL and without it (zero for a
    /// purely native wait).
    #[getter]
    fn spun(&self) -> f64 {
        seconds_of_ns(self.settled().spun_ns)
    }

    /// How long the wait busy-spun, in nanoseconds.
    #[getter]
    fn spun_ns(&self) -> i128 {
        self.settled().spun_ns
    }

    /// How long of `spun` the GIL was held, in seconds: from taking it back to the end of
    /// the wait. For a blocking wait the part before the deadline is at most
    /// `clock_info()["gil_spin_cap"]`; an asyncio sleep spins in its task, where the GIL is
    /// held throughout, for up to half of the sleep.
    #[getter]
    fn gil_spun(&self) -> f64 {
        seconds_of_ns(self.settled().gil_spun_ns)
    }

    /// How long of `spun` the GIL was held, in nanoseconds.
    #[getter]
    fn gil_spun_ns(&self) -> i128 {
        self.settled().gil_spun_ns
    }

    /// How long taking the GIL back took, in seconds (zero when the wait kept it: one
    /// shorter than the lead, an asyncio sleep).
    #[getter]
    fn gil_wait(&self) -> f64 {
        seconds_of_ns(self.gil_wait_ns)
    }

    /// How long taking the GIL back took, in nanoseconds.
    #[getter]
    fn gil_wait_ns(&self) -> i128 {
        self.gil_wait_ns
    }

    /// Whether the wait ended late for the GIL: taking it back took longer than the lead
    /// allowed for (`clock_info()["gil_lead"]`; for a native wait, longer than that lead)
    /// and the wait ended after its deadline. Mostly another thread held the GIL; CPython
    /// hands it over within its switch interval, `sys.getswitchinterval()`.
    #[getter]
    fn gil_late(&self) -> bool {
        self.settled().gil_late
    }

    fn __repr__(&self) -> String {
        format!(
            "Wake(deadline={:?}, lateness_ns={}, sleeper_lateness_ns={}, spun_ns={})",
            self.deadline(),
            self.lateness_ns(),
            self.sleeper_lateness_ns(),
            self.settled().spun_ns
        )
    }
}

/// One tick of a `Ticker` or an asyncio `interval`: its index on the grid, how many grid
/// points were missed just before it, and the wait's report.
#[pyclass(name = "Tick", module = "punctual")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PyTick {
    index: u64,
    missed: u64,
    wake: PyWake,
}

impl PyTick {
    pub(crate) fn new(frame: &Frame, tick: punctual::Tick) -> PyTick {
        PyTick {
            index: tick.index(),
            missed: tick.missed(),
            wake: PyWake::of(frame, Ended::held(tick.wake()), None),
        }
    }

    /// The report of tick `index` before its wait, for [`PyTick::complete`].
    pub(crate) fn pending(index: u64, missed: u64) -> PyTick {
        PyTick {
            index,
            missed,
            wake: PyWake::pending(),
        }
    }

    /// Fills the tick's report in, for the Python half to finish; see
    /// [`PyWake::complete_early`].
    pub(crate) fn complete_early(
        &mut self,
        frame: &Frame,
        ended: Ended,
        deadline_ns: i128,
        led: bool,
    ) {
        self.wake.complete_early(frame, ended, deadline_ns, led);
    }
}

#[pymethods]
impl PyTick {
    /// One reading of the Python half's spin (see [`PyWake::arrive`]).
    fn _arrive(&mut self, now_ns: i64) {
        self.wake.arrive(now_ns.into());
    }

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

    /// How late the tick came back to the caller, in seconds (`Wake.lateness`).
    #[getter]
    fn lateness(&self) -> f64 {
        self.wake.lateness()
    }

    /// How late the tick came back to the caller, in nanoseconds.
    #[getter]
    fn lateness_ns(&self) -> i128 {
        self.wake.lateness_ns()
    }

    /// The full report of the tick's wait.
    #[getter]
    fn wake(&self) -> PyWake {
        self.wake.settled()
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
