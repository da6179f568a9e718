"""Microsecond timers for asyncio, on punctual's timer driver.

``asyncio.sleep`` waits on its loop's selector, whose timeout counts whole milliseconds:
``asyncio.sleep(0.0001)`` takes a millisecond. Here a driver thread holds the deadlines,
sleeps natively until the earliest, and a delivering thread (``punctual-asyncio``) wakes
the sleeping task's own loop with ``loop.call_soon_threadsafe``; the task finishes with a
short spin (on the loop's thread, at most half of the sleep) whose length the driver
learns, so it resumes close to its deadline, never before it.

Cancelling a task that awaits :func:`sleep` removes its timer from the driver
(:func:`pending` counts what is left).
"""

from __future__ import annotations

import asyncio as _asyncio
import threading as _threading
from typing import AsyncIterator, Optional

from . import _punctual
from ._punctual import Tick, Wake, driver_stats, pending

__all__ = ["sleep", "sleep_until", "sleep_until_ns", "interval", "Interval", "pending", "driver_stats"]


_delivering: Optional[_threading.Thread] = None
_delivering_lock = _threading.Lock()


def _deliver() -> None:
    # The driver thread queues the fired timers' callbacks; this hands each to its loop.
    while True:
        for loop, callback in _punctual._take_wakes():
            try:
                loop.call_soon_threadsafe(callback)
            except RuntimeError:
                pass  # the loop is closed: its task is gone, nobody waits for the callback


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

    def fired() -> None:
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    try:
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

    def __init__(self, period: float, *, missed: str = "skip", first: Optional[float] = None) -> None:
        _start_delivering()
        self._inner = _punctual._AsyncInterval(period, missed=missed, first=first)
        self._waiting: Optional[_asyncio.Future[None]] = None

    def _fired(self) -> None:
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


def interval(period: float, *, missed: str = "skip", first: Optional[float] = None) -> Interval:
    """Tick every ``period`` seconds on a fixed grid: ``async for tick in interval(0.001)``.

    Tick ``k`` is due ``first + k * period`` (``first`` defaults to one period from now), in
    integer nanoseconds, so there is no drift. ``missed`` is ``"skip"``, ``"burst"`` or
    ``"delay"``, as for :class:`punctual.Ticker`.
    """
    return Interval(period, missed=missed, first=first)
