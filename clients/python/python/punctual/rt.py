"""Real-time controls: what decides lateness as much as the timer does.

A sleep is only as punctual as its thread is free to run when it wakes. These are the
library's ``punctual::rt`` controls, the same as the C client's:

- :func:`set_realtime_priority` runs the calling thread under ``SCHED_FIFO`` (Linux; the
  time-critical level on Windows, the time-constraint policy on macOS), and
  :func:`set_normal_scheduling` returns it to time-sharing; :func:`current_scheduling`
  says which is in force, :func:`priority_range` what is accepted.
- :func:`lock_memory` (``mlockall``) keeps every page in RAM; :func:`unlock_memory` undoes
  it.
- :func:`dma_latency` holds ``/dev/cpu_dma_latency`` while its ``with`` block runs,
  keeping CPUs out of deep idle states::

      with punctual.rt.dma_latency(0):
          for tick in punctual.Ticker(0.001):
              ...

A refusal raises :class:`RealtimePermissionError` (a ``PermissionError``) whose message
names the ways to grant the privilege (``CAP_SYS_NICE``, ``ulimit -r``, ``CAP_IPC_LOCK``,
``ulimit -l``, access to ``/dev/cpu_dma_latency``); a control this platform lacks raises
:class:`RealtimeUnsupportedError`; both are :class:`RealtimeError`, an ``OSError``. A
priority out of range is a ``ValueError``, and nothing is changed.
"""

from ._punctual import (
    DmaLatency,
    RealtimeError,
    RealtimePermissionError,
    RealtimeUnsupportedError,
    Scheduling,
    current_scheduling,
    dma_latency,
    lock_memory,
    priority_range,
    set_normal_scheduling,
    set_realtime_priority,
    unlock_memory,
)

__all__ = [
    "DmaLatency",
    "RealtimeError",
    "RealtimePermissionError",
    "RealtimeUnsupportedError",
    "Scheduling",
    "current_scheduling",
    "dma_latency",
    "lock_memory",
    "priority_range",
    "set_normal_scheduling",
    "set_realtime_priority",
    "unlock_memory",
]
