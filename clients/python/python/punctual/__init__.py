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
thread, never more than 50 microseconds, ``clock_info()["gil_spin_cap"]``) and spins the
rest with it held, so that the way back into Python is not added to its lateness.
"""

from . import rt
from ._punctual import (
    __version__,
    Band,
    Deadline,
    PollTimeout,
    Probe,
    Sleeper,
    Tick,
    Ticker,
    Wake,
    cheat_sheet,
    clock_info,
    poll_until,
    probe,
    sleep,
    sleep_until,
    sleep_until_ns,
    timer_info,
)

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
