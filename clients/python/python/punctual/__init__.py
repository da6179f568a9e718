"""Sleeps that never wake early, and wake as little late as the machine allows.

``punctual.sleep(0.001)`` sleeps natively until a learned margin before the deadline and
spins the rest, so it wakes a few hundred nanoseconds late where ``time.sleep`` wakes
50 to 100 microseconds late on Linux. Deadlines are readings of ``time.perf_counter()``
(``perf_counter_ns()`` for the ``*_ns`` forms), the clock punctual's library waits on, on
every OS; on Linux and macOS ``time.monotonic()`` is the same clock.

- :func:`sleep`, :func:`sleep_until`, :func:`sleep_until_ns`: never early, with a
  :class:`Wake` report (``lateness`` as the caller got control back, ``sleeper_lateness``
  as the wait itself ended, ``spun``, and how the GIL came back).
- :class:`Sleeper`: a fixed strategy (``"hybrid"``, ``"native"``, ``"spin"``).
- :class:`Ticker`: a drift-free grid of ticks, as an iterator.
- :class:`Deadline` and :func:`poll_until` (raising :class:`PollTimeout`, a
  ``TimeoutError``).
- :mod:`punctual.asyncio`: ``await punctual.asyncio.sleep(...)`` with microsecond
  resolution, and ``async for tick in punctual.asyncio.interval(...)``.
- :func:`probe`: what a plain sleep costs here, whether it is quantised (Windows' 15.625
  ms tick) and its :meth:`Probe.cheat_sheet`; :func:`cheat_sheet` for a known quantum.
- :mod:`punctual.rt`: real-time priority, memory locking and the ``/dev/cpu_dma_latency``
  hold (``with punctual.rt.dma_latency(0): ...``).

Every wait releases the GIL, and Ctrl-C interrupts a long one with ``KeyboardInterrupt``. A
hybrid or spinning wait takes the GIL back shortly before its deadline (a lead learned per
thread, at most 25 microseconds), returns into Python a second lead before it
(``clock_info()["python_lead"]``, learned per thread from how long that return and the
spin's first turn take, at most 100 microseconds; the two together at most
``clock_info()["gil_spin_cap"]``) and spins the rest here, in Python, on
``time.perf_counter_ns()``: the interpreter's way back, cold after a long sleep, is then
run before the deadline, and the caller's next line runs hot at it, as after a spin loop
written by hand.
"""

from time import perf_counter_ns as _perf_counter_ns
from typing import TypeVar, Union

from . import rt
from . import _punctual
from ._punctual import (
    __version__,
    Band,
    Deadline,
    PollTimeout,
    Probe,
    Tick,
    Wake,
    cheat_sheet,
    clock_info,
    poll_until,
    probe,
    timer_info,
)

_Seconds = Union[int, float]
_Report = TypeVar("_Report", Wake, Tick)


def _arrive(report: _Report) -> _Report:
    """The last stretch of a wait, in the caller's interpreter: spin on
    ``perf_counter_ns()`` to the deadline, handing every reading to the report. The
    reading that ends the wait takes the same path as the others, hot by then, and only
    the return follows it."""
    due = report.deadline_ns
    arrive = report._arrive
    now = _perf_counter_ns()
    arrive(now)
    while now < due:
        now = _perf_counter_ns()
        arrive(now)
    return report


def sleep(seconds: _Seconds) -> Wake:
    """Sleep ``seconds`` (an int or a float, zero or more) with this thread's hybrid
    sleeper; never returns early. The GIL is released while it waits; Ctrl-C raises
    ``KeyboardInterrupt``."""
    return _arrive(_punctual._sleep(seconds))


def sleep_until(deadline: _Seconds) -> Wake:
    """Sleep until ``deadline``, in seconds on ``time.perf_counter()``'s clock (on Linux and
    macOS also ``time.monotonic()``'s); a past deadline returns at once. Never returns
    before ``time.perf_counter() >= deadline``."""
    return _arrive(_punctual._sleep_until(deadline))


def sleep_until_ns(deadline_ns: int) -> Wake:
    """Sleep until ``deadline_ns``, an int of nanoseconds on ``time.perf_counter_ns()``'s
    clock."""
    return _arrive(_punctual._sleep_until_ns(deadline_ns))


class Sleeper(_punctual.Sleeper):
    """A waiter with a fixed strategy: ``"hybrid"`` (the default: native, then a learned
    spin tail), ``"native"`` (no spinning) or ``"spin"`` (a busy wait). A hybrid sleeper
    learns from its own sleeps: keep one per thread and reuse it."""

    __slots__ = ()

    def sleep(self, seconds: _Seconds) -> Wake:
        """Sleep ``seconds``; see :func:`punctual.sleep`."""
        return _arrive(self._sleep(seconds))

    def sleep_until(self, deadline: _Seconds) -> Wake:
        """Sleep until ``deadline`` (seconds, ``time.perf_counter()``); see
        :func:`punctual.sleep_until`."""
        return _arrive(self._sleep_until(deadline))

    def sleep_until_ns(self, deadline_ns: int) -> Wake:
        """Sleep until ``deadline_ns`` (nanoseconds, ``time.perf_counter_ns()``)."""
        return _arrive(self._sleep_until_ns(deadline_ns))


class Ticker(_punctual.Ticker):
    """Ticks on a fixed grid: tick ``k`` is due ``first + k * period``, computed in integer
    nanoseconds, so there is no drift. Iterate it (``for tick in Ticker(0.001): ...``);
    each tick reports its index, lateness and the grid points missed before it.

    ``policy`` decides what an overdue tick does (``missed``, its old name, still works for
    one release, with a ``DeprecationWarning``): ``"skip"`` (the default) waits for the
    next grid point not yet past and counts the skipped ones, ``"burst"`` fires every
    overdue tick at once, in order, ``"delay"`` fires at once and moves the grid to start
    there."""

    __slots__ = ()

    def __iter__(self) -> "Ticker":
        return self

    def __next__(self) -> Tick:
        return _arrive(self._tick())

    def tick(self) -> Tick:
        """Wait for the next tick and report it."""
        return _arrive(self._tick())

__all__ = [
    "__version__",
    "Band",
    "Deadline",
    "PollTimeout",
    "Probe",
    "Sleeper",
    "Tick",
    "Ticker",
    "Wake",
    "cheat_sheet",
    "clock_info",
    "poll_until",
    "probe",
    "rt",
    "sleep",
    "sleep_until",
    "sleep_until_ns",
    "timer_info",
]
