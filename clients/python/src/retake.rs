//! The way back into Python as part of the wait: the GIL taken back before the deadline.
//!
//! A wait that lets the GIL go ends, for its caller, when the thread has the GIL again and
//! the interpreter runs the caller's next line, not when the library's clock reading passed
//! the deadline. Taking the GIL back costs little when no other thread wants it (a few
//! microseconds, more once the thread's caches went cold while it waited) and up to
//! Python's switch interval (`sys.getswitchinterval()`, 5 ms by default) when another
//! thread holds it. So a hybrid or spinning wait lets the GIL go only until a *lead* before
//! the deadline, takes it back, and spins the rest with it held: the way back then starts
//! at the deadline with the GIL already in hand.
//!
//! The lead is learned per thread by the library's [`WayBack`] (the 95th percentile of the
//! last 64 re-acquires, with half of it again as headroom, never less than 1 µs), never
//! more than [`GIL_LEAD_CAP`]. The way on, from the binding's last reading into the caller's
//! Python code, has a lead of its own ([`python_lead`]), at most [`PYTHON_LEAD_CAP`]: the binding
//! returns that early, and the package's Python code spins the rest on
//! `time.perf_counter_ns()`, handing each reading to the report, so that the interpreter's
//! way back and the report's bookkeeping, cold after a long sleep, run before the deadline
//! and the reading that ends the wait takes a path the spin has run hot. The GIL is held from its return to the deadline for at most
//! the two leads, [`GIL_SPIN_CAP`], which bounds how long this keeps other Python threads
//! waiting. A contended GIL can take longer than any lead within the cap: then the wait is
//! late by the rest, and the report says so ([`Ended::gil_late`]). A native wait spins for
//! nothing, not even this: it takes the GIL back after its wake, as `time.sleep` does, and
//! returns at once.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use punctual::{Sleeper, Strategy, Wake, WayBack};

use crate::sys::without_gil;

/// The longest a wait spins with the GIL held before its deadline: the two leads'
/// caps together.
///
/// 2.5% of Python's default switch interval (5 ms): CPython itself lets a thread keep the
/// GIL that long before another that waits for it asks for it back, so this delays such a
/// thread by a fortieth of what the interpreter allows any thread, once per wait. An
/// uncontended GIL comes back in a few microseconds, so the binding's lead only binds when
/// it is contended, and then it comes back within the switch interval: no lead a waiting
/// thread could bear (a millisecond held for every wait) would make such a wait punctual.
/// It is late instead, and says so.
pub(crate) const GIL_SPIN_CAP: Duration = GIL_LEAD_CAP.saturating_add(PYTHON_LEAD_CAP);

/// The longest the binding spins with the GIL it took back before it returns: taking an
/// uncontended GIL back costs microseconds, and a contended one more than any lead covers.
const GIL_LEAD_CAP: Duration = Duration::from_micros(25);

/// The longest the package's Python spin runs before the deadline ([`python_lead`]). Code
/// first run after a long sleep (the return through the binding, the interpreter's call
/// machinery, the report's getters) costs tens of microseconds on caches the sleep let go
/// cold; the spin must start before all of that has run, or the wait is late by the rest.
/// Four times the binding's cap, since this stretch runs far more code than a GIL
/// hand-over.
const PYTHON_LEAD_CAP: Duration = Duration::from_micros(100);

/// How a wait ended, the way back into Python included.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ended {
    pub(crate) deadline: Instant,
    /// The clock reading that ended the wait: the first at or after the deadline.
    pub(crate) woke: Instant,
    /// All the wait spun, with and without the GIL.
    pub(crate) spun: Duration,
    /// Of which with the GIL held.
    pub(crate) gil_spun: Duration,
    /// How long taking the GIL back took (zero when the wait never let it go).
    pub(crate) gil_wait: Duration,
    /// Taking the GIL back took longer than the lead allowed for (for a native wait, than
    /// this thread's lead), and the wait ended after its deadline: late by the GIL, mostly
    /// because another thread held it, whether or not the timer was late too.
    pub(crate) gil_late: bool,
}

impl Ended {
    /// A wait that kept the GIL throughout (an asyncio timer polled by its task).
    pub(crate) fn held(wake: Wake) -> Ended {
        Ended {
            deadline: wake.deadline(),
            woke: wake.woke(),
            spun: wake.spun(),
            gil_spun: wake.spun(),
            gil_wait: Duration::ZERO,
            gil_late: false,
        }
    }
}

thread_local! {
    static RETURNS: RefCell<WayBack> = const { RefCell::new(WayBack::with_cap(GIL_LEAD_CAP)) };
    /// The way from the binding's last reading to the caller's Python code: the return
    /// through pyo3 and the interpreter's call machinery, cold after a long sleep.
    static INTO_PYTHON: RefCell<WayBack> = const { RefCell::new(WayBack::with_cap(PYTHON_LEAD_CAP)) };
    /// The spin with the GIL held is the library's, as every other spin of the binding.
    static SPINNER: RefCell<Sleeper> = RefCell::new(Sleeper::spin());
}

/// How early this thread's next hybrid or spinning wait takes the GIL back.
pub(crate) fn lead() -> Duration {
    RETURNS.with(|returns| returns.borrow_mut().lead())
}

/// How early this thread's next hybrid or spinning wait returns into Python, for the
/// package's Python code to spin the rest on `time.perf_counter_ns()` (`_arrive` in
/// `punctual/__init__.py`): the interpreter's return path and clock reads then run hot at
/// the deadline, as they do in a hand-written spin loop. Zero for a native wait, which
/// spins for nothing. At most [`PYTHON_LEAD_CAP`].
pub(crate) fn python_lead(strategy: Strategy) -> Duration {
    if strategy == Strategy::Native {
        return Duration::ZERO;
    }
    INTO_PYTHON.with(|way| way.borrow_mut().lead())
}

/// Records one way into Python: from the binding's last reading to the second reading of
/// the package's spin, so that the spin's first turn, cold after the wait, counts in the
/// lead as the way into it does: the lead then leaves the spin at least one hot turn
/// before the deadline.
pub(crate) fn record_into_python(cost: Duration) {
    INTO_PYTHON.with(|way| way.borrow_mut().record(cost));
}

fn spin_until(deadline: Instant) -> Wake {
    SPINNER.with(|spinner| spinner.borrow_mut().sleep_until(deadline))
}

/// The last stretch of a wait to `deadline`: `finish` waits with the GIL released, until
/// the lead before the deadline for a hybrid or spinning wait, then the GIL is taken back
/// and the rest spun with it held; a native wait takes it back after its wake.
pub(crate) fn last_stretch<F>(
    py: Python<'_>,
    deadline: Instant,
    strategy: Strategy,
    finish: F,
) -> Ended
where
    F: FnOnce(Instant) -> Wake + Send,
{
    let lead = lead();
    if strategy == Strategy::Native {
        let wake = without_gil(py, move || finish(deadline));
        let gil_wait = Instant::now().saturating_duration_since(wake.woke());
        return Ended {
            deadline,
            woke: wake.woke(),
            spun: wake.spun(),
            gil_spun: Duration::ZERO,
            gil_wait,
            // Always past the deadline: late by the GIL when it took longer than it does here.
            gil_late: gil_wait > lead,
        };
    }
    let retake = match deadline.checked_sub(lead) {
        Some(retake) if retake > Instant::now() => retake,
        // Within the lead already: the GIL is kept, and the spin lasts at most the lead.
        _ => return Ended::held(spin_until(deadline)),
    };
    let early = without_gil(py, move || finish(retake));
    let back = Instant::now();
    let gil_wait = back.saturating_duration_since(early.woke());
    RETURNS.with(|returns| returns.borrow_mut().record(gil_wait));
    // The GIL came back at or after `retake`, so this spin holds it at most `lead` before
    // the deadline (at once when it came back late).
    let spin = spin_until(deadline);
    Ended {
        deadline,
        woke: spin.woke(),
        spun: early.spun() + spin.spun(),
        gil_spun: spin.spun(),
        gil_wait,
        gil_late: gil_wait > lead && back > deadline,
    }
}
