"""Microsecond timers for asyncio, on punctual's timer driver.

``asyncio.sleep`` waits on its loop's selector, whose timeout counts whole milliseconds:
``asyncio.sleep(0.0001)`` takes a millisecond. Here a driver thread holds the deadlines,
sleeps natively until the earliest, and a delivering thread (``punctual-asyncio``) wakes
the sleeping task's own loop with ``loop.call_soon_threadsafe``; the task finishes with a
short spin (on the loop's thread, at most half of the sleep) whose length the driver
learns, so it resumes close to its deadline, never before it.

That way from the driver's thread to the task (two thread wake-ups, the GIL, the loop's
turn) takes tens to hundreds of microseconds, so a sleep shorter than it cannot be served
by it. Such a sleep (shorter than three quarters of the recent trips, see :func:`handoff_ns`)
keeps its loop turning instead: the task yields to the loop, as ``await
asyncio.sleep(0)`` does, until the deadline, so the other tasks still run while it waits
but the loop's thread does not sleep. One such sleep in 16 still takes the driver's way,
so the estimate follows the machine. An interval's ticks do the same.

Cancelling a task that awaits :func:`sleep` removes its timer from the driver
(:func:`pending` counts what is left).
"""

from __future__ import annotations

import asyncio as _asyncio
import os as _os
import threading as _threading
import time as _time
import warnings as _warnings
from typing import AsyncIterator, List, Optional

from . import _punctual
from ._punctual import Tick, Wake, driver_stats, pending

__all__ = [
    "sleep",
    "sleep_until",
    "sleep_until_ns",
    "interval",
    "Interval",
    "pending",
    "driver_stats",
    "handoff_ns",
]


_delivering: Optional[_threading.Thread] = None
_delivering_lock = _threading.Lock()


def _after_fork_in_child() -> None:
    # The child has no delivering thread, and the lock may have been held by a thread that
    # the fork left behind: both start anew. (The library gives the child a driver of its
    # own, without the parent's timers.)
    global _delivering, _delivering_lock
    _delivering = None
    _delivering_lock = _threading.Lock()


if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_after_fork_in_child)


def _deliver() -> None:
    # The driver thread queues the fired timers' callbacks; this hands each to its loop.
    while True:
        for loop, callback, woken_ns in _punctual._take_wakes():
            try:
                loop.call_soon_threadsafe(callback, woken_ns)
            except RuntimeError:
                pass  # the loop is closed: its task is gone, nobody waits for the callback


class _Handoff:
    """The recent trips from the driver's thread waking a timer to its task running."""

    SAMPLES = 32
    PROBE_EVERY = 16

    def __init__(self) -> None:
        self._trips_ns: List[int] = []
        self._next = 0
        self._window_ns = 0
        self._short = 0
        self._lock = _threading.Lock()

    def record(self, woken_ns: int) -> None:
        trip = _time.perf_counter_ns() - woken_ns
        with self._lock:
            if len(self._trips_ns) < self.SAMPLES:
                self._trips_ns.append(trip)
            else:
                self._trips_ns[self._next] = trip
                self._next = (self._next + 1) % self.SAMPLES
            ordered = sorted(self._trips_ns)
            self._window_ns = ordered[(len(ordered) * 3) // 4]

    def window_ns(self) -> int:
        return self._window_ns

    def takes_the_loop(self, left_ns: int) -> bool:
        """Whether a sleep with ``left_ns`` to go should keep the loop turning."""
        if left_ns <= 0 or left_ns >= self._window_ns:
            return False
        with self._lock:
            self._short += 1
            return self._short % self.PROBE_EVERY != 0


_handoff = _Handoff()


def handoff_ns() -> int:
    """How long the way from the driver's thread to a task takes here: three quarters of
    the last 32 trips took at most this (0 before any). Sleeps shorter than it keep their
    loop turning to their deadline instead of waiting for the driver."""
    return _handoff.window_ns()


async def _turn_until(deadline_ns: int) -> None:
    # Yield to the loop until the deadline: other tasks run in between, the loop never
    # blocks in its selector.
    while _time.perf_counter_ns() < deadline_ns:
        await _asyncio.sleep(0)


async def _turn_if_short(deadline_ns: Optional[int]) -> None:
    # A wait shorter than the driver's way to the task (see _Handoff) keeps the loop turning.
    if deadline_ns is not None and _handoff.takes_the_loop(deadline_ns - _time.perf_counter_ns()):
        await _turn_until(deadline_ns)


def _start_delivering() -> None:
    global _delivering
    if _delivering is not None and _delivering.is_alive():
        return
    with _delivering_lock:
        if _delivering is None or not _delivering.is_alive():
            _delivering = _threading.Thread(target=_deliver, name="punctual-asyncio", daemon=True)
            _delivering.start()


async def _complete(timer: _punctual._AsyncTimer) -> Wake:
    _start_delivering()
    loop = _asyncio.get_running_loop()
    waiting: Optional[_asyncio.Future[None]] = None

    def fired(woken_ns: int) -> None:
        _handoff.record(woken_ns)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    try:
        await _turn_if_short(timer.deadline_ns)
        while True:
            waiting = loop.create_future()
            wake = timer.poll(loop, fired)
            if wake is not None:
                return wake
            await waiting
    finally:
        timer.close()


async def sleep(seconds: float) -> Wake:
    """Sleep ``seconds`` (int or float, zero or more); never returns early."""
    return await _complete(_punctual._AsyncTimer.after(seconds))


async def sleep_until(deadline: float) -> Wake:
    """Sleep until ``deadline``, seconds on ``time.perf_counter()``'s clock."""
    return await _complete(_punctual._AsyncTimer.until(deadline))


async def sleep_until_ns(deadline_ns: int) -> Wake:
    """Sleep until ``deadline_ns``, nanoseconds on ``time.perf_counter_ns()``'s clock."""
    return await _complete(_punctual._AsyncTimer.until_ns(deadline_ns))


class Interval:
    """Ticks on a fixed grid for ``async for``; see :func:`interval`."""

    def __init__(
        self,
        period: float,
        *,
        policy: Optional[str] = None,
        first: Optional[float] = None,
        missed: Optional[str] = None,
    ) -> None:
        policy = _policy(policy, missed, stacklevel=3)
        _start_delivering()
        self._inner = _punctual._AsyncInterval(period, policy=policy, first=first)
        self._waiting: Optional[_asyncio.Future[None]] = None

    def _fired(self, woken_ns: int) -> None:
        _handoff.record(woken_ns)
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    @property
    def period(self) -> Optional[float]:
        """The period in seconds (``None`` once closed)."""
        return self._inner.period

    async def tick(self) -> Tick:
        """Wait for the next tick.

        Cancelled while waiting, the interval keeps its next timer: the next call waits for
        the same tick. :meth:`close` removes it.
        """
        loop = _asyncio.get_running_loop()
        await _turn_if_short(self._inner.next_deadline_ns)
        while True:
            self._waiting = loop.create_future()
            tick = self._inner.poll_tick(loop, self._fired)
            if tick is not None:
                return tick
            if self._inner.period is None:
                raise RuntimeError("the interval is closed")
            await self._waiting

    def __aiter__(self) -> AsyncIterator[Tick]:
        return self

    async def __anext__(self) -> Tick:
        return await self.tick()

    def close(self) -> None:
        """Remove the interval's timer from the driver."""
        self._inner.close()

    async def __aenter__(self) -> "Interval":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


def _policy(policy: Optional[str], missed: Optional[str], stacklevel: int) -> str:
    """``policy=``, or ``missed=``, its name before 0.2, kept for one release."""
    if missed is not None:
        if policy is not None:
            raise TypeError("give policy= only (missed= is its old name)")
        _warnings.warn(
            "missed= is now policy= (as in every other punctual client); missed= goes in the next release",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        return missed
    return "skip" if policy is None else policy


def interval(
    period: float,
    *,
    policy: Optional[str] = None,
    first: Optional[float] = None,
    missed: Optional[str] = None,
) -> Interval:
    """Tick every ``period`` seconds on a fixed grid: ``async for tick in interval(0.001)``.

    Tick ``k`` is due ``first + k * period`` (``first`` defaults to one period from now), in
    integer nanoseconds, so there is no drift. ``policy`` is ``"skip"`` (the default),
    ``"burst"`` or ``"delay"``, as for :class:`punctual.Ticker` (``missed``, its old name,
    still works for one release, with a ``DeprecationWarning``).
    """
    return Interval(period, policy=_policy(policy, missed, stacklevel=2), first=first)
