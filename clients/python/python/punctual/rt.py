"""Real-time controls: what decides lateness as much as the timer does.

A sleep is only as punctual as its thread is free to run when it wakes. These are the
library's ``punctual::rt`` controls, the same as the C client's:

- :func:`set_realtime_priority` runs the calling thread under ``SCHED_FIFO`` (Linux; the
  time-critical level on Windows, the time-constraint policy on macOS), and
  :func:`set_normal_scheduling` returns it to time-sharing; :func:`current_scheduling`
  says which is in force, :func:`priority_range` what is accepted.
- :func:`timer_slack` and :func:`set_timer_slack` read and set the calling thread's timer
  slack in seconds (Linux), how late the kernel may fire its timers.
- :func:`set_affinity` pins the calling thread to some CPUs; :func:`available_cpus` says
  which it may run on.
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
priority out of range, a slack of zero, negative or NaN, and an empty or unusable CPU set
are each a ``ValueError``, and nothing is changed.
"""

from ._punctual import (
    DmaLatency,
    RealtimeError,
    RealtimePermissionError,
    RealtimeUnsupportedError,
    Scheduling,
    available_cpus,
    current_scheduling,
    dma_latency,
    lock_memory,
    priority_range,
    set_normal_scheduling,
    set_affinity,
    set_realtime_priority,
    set_timer_slack,
    timer_slack,
    unlock_memory,
)

__all__ = [
    "DmaLatency",
    "RealtimeError",
    "RealtimePermissionError",
    "RealtimeUnsupportedError",
    "Scheduling",
    "available_cpus",
    "current_scheduling",
    "dma_latency",
    "lock_memory",
    "priority_range",
    "set_normal_scheduling",
    "set_affinity",
    "set_realtime_priority",
    "set_timer_slack",
    "timer_slack",
    "unlock_memory",
]
