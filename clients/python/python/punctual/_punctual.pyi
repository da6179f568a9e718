"""Type stubs for punctual's compiled module (see the docstrings for the full story)."""

import asyncio
from types import TracebackType
from typing import Any, Callable, Iterable, Optional, TypeVar, Union, final

_T = TypeVar("_T")
_Seconds = Union[int, float]

__all__ = [
    "__version__",
    "_sleep",
    "_sleep_until",
    "_sleep_until_ns",
    "Sleeper",
    "Wake",
    "Tick",
    "Ticker",
    "Deadline",
    "poll_until",
    "PollTimeout",
    "timer_info",
    "clock_info",
    "probe",
    "Probe",
    "cheat_sheet",
    "Band",
    "RealtimeError",
    "RealtimePermissionError",
    "RealtimeUnsupportedError",
    "Scheduling",
    "priority_range",
    "current_scheduling",
    "set_realtime_priority",
    "set_normal_scheduling",
    "timer_slack",
    "set_timer_slack",
    "set_affinity",
    "available_cpus",
    "lock_memory",
    "unlock_memory",
    "DmaLatency",
    "dma_latency",
    "_AsyncTimer",
    "_AsyncInterval",
    "pending",
    "driver_stats",
    "_take_wakes",
]

__version__: str

@final
class Wake:
    """The report of one wait, on ``time.perf_counter()``'s clock.

    ``woke``/``lateness``: when the caller got control back (the last reading of the
    package's Python spin, the first at or after the deadline); ``sleeper_woke``/
    ``sleeper_lateness``: the reading that ended the wait itself; ``gil_spun``,
    ``gil_wait``, ``gil_late``: how the GIL came back.
    """

    def _arrive(self, now_ns: int) -> None: ...

    @property
    def deadline(self) -> float: ...
    @property
    def deadline_ns(self) -> int: ...
    @property
    def woke(self) -> float: ...
    @property
    def woke_ns(self) -> int: ...
    @property
    def lateness(self) -> float: ...
    @property
    def lateness_ns(self) -> int: ...
    @property
    def sleeper_woke(self) -> float: ...
    @property
    def sleeper_woke_ns(self) -> int: ...
    @property
    def sleeper_lateness(self) -> float: ...
    @property
    def sleeper_lateness_ns(self) -> int: ...
    @property
    def spun(self) -> float: ...
    @property
    def spun_ns(self) -> int: ...
    @property
    def gil_spun(self) -> float: ...
    @property
    def gil_spun_ns(self) -> int: ...
    @property
    def gil_wait(self) -> float: ...
    @property
    def gil_wait_ns(self) -> int: ...
    @property
    def gil_late(self) -> bool: ...

@final
class Tick:
    """One tick of a :class:`Ticker` or an asyncio interval."""

    def _arrive(self, now_ns: int) -> None: ...

    @property
    def index(self) -> int: ...
    @property
    def missed(self) -> int: ...
    @property
    def deadline(self) -> float: ...
    @property
    def deadline_ns(self) -> int: ...
    @property
    def lateness(self) -> float: ...
    @property
    def lateness_ns(self) -> int: ...
    @property
    def wake(self) -> Wake: ...

# The compiled halves of the package's waits: each returns a lead before its deadline,
# with a report that `_arrive` finishes (`punctual/__init__.py`); never call them alone.
def _sleep(seconds: _Seconds) -> Wake: ...
def _sleep_until(deadline: _Seconds) -> Wake: ...
def _sleep_until_ns(deadline_ns: int) -> Wake: ...

class Sleeper:
    """The compiled half of ``punctual.Sleeper``."""

    def __new__(cls, strategy: str = "hybrid") -> "Sleeper": ...
    def _sleep(self, seconds: _Seconds) -> Wake: ...
    def _sleep_until(self, deadline: _Seconds) -> Wake: ...
    def _sleep_until_ns(self, deadline_ns: int) -> Wake: ...
    @property
    def strategy(self) -> str: ...
    @property
    def margin(self) -> float: ...
    @property
    def stats(self) -> dict[str, Union[int, float]]: ...

class Ticker:
    """The compiled half of ``punctual.Ticker``."""

    def __new__(
        cls,
        period: _Seconds,
        *,
        policy: Optional[str] = None,
        strategy: str = "hybrid",
        first: Optional[_Seconds] = None,
        missed: Optional[str] = None,
    ) -> "Ticker": ...
    def __iter__(self) -> "Ticker": ...
    def _tick(self) -> Tick: ...
    @property
    def period(self) -> float: ...
    @property
    def policy(self) -> str: ...
    @property
    def next_index(self) -> int: ...
    @property
    def missed(self) -> int: ...
    def deadline_of(self, index: int) -> Optional[float]: ...

@final
class Deadline:
    """A point in time to give up at; ``Deadline(seconds)`` is ``seconds`` from now."""

    def __new__(cls, seconds: _Seconds) -> "Deadline": ...
    @staticmethod
    def after(seconds: _Seconds) -> "Deadline": ...
    @staticmethod
    def at(deadline: _Seconds) -> "Deadline": ...
    @staticmethod
    def never() -> "Deadline": ...
    @property
    def when(self) -> Optional[float]: ...
    @property
    def remaining(self) -> float: ...
    @property
    def has_passed(self) -> bool: ...
    @property
    def is_never(self) -> bool: ...

class PollTimeout(TimeoutError):
    """The deadline passed with the condition still unmet."""

    elapsed: float
    polls: int

def poll_until(
    condition: Callable[[], _T],
    timeout: Union[_Seconds, Deadline, None] = None,
    *,
    step: Optional[_Seconds] = None,
    before_sleep: Optional[Callable[[], Any]] = None,
) -> _T:
    """Call ``condition()`` until it returns a true value, which it returns."""

def timer_info() -> dict[str, Any]:
    """The native timer as the calling thread uses it."""

def clock_info() -> dict[str, Any]:
    """Which Python clock deadlines are read on, and the conversion's spread."""

@final
class Band:
    """One band of a quantum's cheat sheet: ``request_ms`` costs about ``k`` quanta."""

    @property
    def k(self) -> int: ...
    @property
    def request_ms(self) -> int: ...
    @property
    def request(self) -> float: ...
    @property
    def cost(self) -> float: ...
    @property
    def rate_hz(self) -> float: ...

@final
class Probe:
    """What a plain sleep costs here, and whether it is quantised (seconds)."""

    @property
    def samples(self) -> int: ...
    @property
    def costs(self) -> list[tuple[float, float]]: ...
    @property
    def floor(self) -> float: ...
    @property
    def quantum(self) -> Optional[float]: ...
    @property
    def overshoot(self) -> Optional[float]: ...
    @property
    def primitive(self) -> Optional[str]: ...
    def cheat_sheet(self, bands: int = 10) -> list[Band]: ...

def probe(samples: int = 5, *, sleep: Optional[Callable[[float], Any]] = None) -> Probe:
    """Time a plain sleep back to back at 1 to 30 ms and say whether it is quantised."""

def cheat_sheet(quantum: _Seconds, bands: int = 10) -> list[Band]:
    """The first ``bands`` mid-band requests of ``quantum`` seconds."""

class RealtimeError(OSError):
    """A real-time control the OS refused or failed; the message says how to fix it."""

class RealtimePermissionError(RealtimeError, PermissionError):
    """Refused for lack of privilege; the message names the ways to grant it."""

class RealtimeUnsupportedError(RealtimeError):
    """This platform has no such control."""

@final
class Scheduling:
    """A thread's scheduling policy (as the OS names it) and priority."""

    @property
    def policy(self) -> str: ...
    @property
    def priority(self) -> int: ...
    @property
    def realtime(self) -> bool: ...

def priority_range() -> tuple[int, int]:
    """The real-time priorities ``set_realtime_priority`` accepts."""

def current_scheduling() -> Scheduling:
    """The calling thread's scheduling."""

def set_realtime_priority(priority: int) -> Scheduling:
    """Run the calling thread under real-time scheduling (``SCHED_FIFO`` on Linux)."""

def set_normal_scheduling() -> Scheduling:
    """Return the calling thread to time-sharing scheduling."""

def timer_slack() -> float:
    """The calling thread's timer slack in force, in seconds."""

def set_timer_slack(slack: _Seconds) -> None:
    """Set the calling thread's timer slack, in seconds (rounded up to nanoseconds)."""

def set_affinity(cpus: Iterable[int]) -> None:
    """Restrict the calling thread to ``cpus``; all or nothing."""

def available_cpus() -> list[int]:
    """The CPUs the calling thread may run on, in increasing order."""

def lock_memory() -> None:
    """Lock all of the process's memory into RAM (``mlockall``)."""

def unlock_memory() -> None:
    """Undo ``lock_memory()``."""

@final
class DmaLatency:
    """A held ``/dev/cpu_dma_latency`` request; a context manager."""

    @property
    def latency(self) -> float: ...
    @property
    def held(self) -> bool: ...
    def release(self) -> None: ...
    def __enter__(self) -> "DmaLatency": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None: ...

def dma_latency(latency: _Seconds) -> DmaLatency:
    """Hold at most ``latency`` seconds of CPU idle-exit latency until released."""

def pending() -> int:
    """Timers pending in the asyncio driver now."""

def driver_stats() -> dict[str, Union[int, float]]:
    """The asyncio driver's counters."""

def _take_wakes() -> list[tuple[asyncio.AbstractEventLoop, Callable[[int], None], int]]: ...

@final
class _AsyncTimer:
    @staticmethod
    def after(seconds: _Seconds) -> "_AsyncTimer": ...
    @staticmethod
    def until(deadline: _Seconds) -> "_AsyncTimer": ...
    @staticmethod
    def until_ns(deadline_ns: int) -> "_AsyncTimer": ...
    def poll(self, event_loop: asyncio.AbstractEventLoop, callback: Callable[[int], None]) -> Optional[Wake]: ...
    @property
    def deadline_ns(self) -> Optional[int]: ...
    def close(self) -> None: ...

@final
class _AsyncInterval:
    def __new__(cls, period: _Seconds, *, policy: str = "skip", first: Optional[_Seconds] = None) -> "_AsyncInterval": ...
    def poll_tick(self, event_loop: asyncio.AbstractEventLoop, callback: Callable[[int], None]) -> Optional[Tick]: ...
    @property
    def next_deadline_ns(self) -> Optional[int]: ...
    @property
    def period(self) -> Optional[float]: ...
    def close(self) -> None: ...
