"""How late each way to wait wakes here, in one interleaved run.

    python -m punctual.bench                # 1 ms and 10 ms, 100 us and 1 ms for asyncio
    python -m punctual.bench --samples 200  # fewer samples per method and wait

Blocking waits, each to a deadline on ``time.perf_counter_ns()``, the methods taking turns
wait by wait so that every one sees the same machine:

- ``time.sleep``: the remaining time, as a loop would sleep it;
- ``sleep+spin 2ms``: ``time.sleep`` to 2 ms before the deadline, then a busy wait on
  ``time.perf_counter()``, the ``precise_sleep`` robotics and control loops write by hand;
- ``punctual``: ``punctual.sleep_until_ns``, the hybrid sleeper.

Lateness is the reading of ``perf_counter_ns()`` right after the wait, minus the deadline;
CPU is ``time.thread_time_ns()`` over the wait. Then ``asyncio.sleep`` against
``punctual.asyncio.sleep_until_ns``, alternating, on one event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Sequence

import punctual
import punctual.asyncio as punctual_asyncio

SPIN_TAIL_NS = 2_000_000


def _time_sleep(deadline_ns: int) -> None:
    remaining = deadline_ns - time.perf_counter_ns()
    if remaining > 0:
        time.sleep(remaining / 1e9)


def _sleep_then_spin(deadline_ns: int) -> None:
    deadline = deadline_ns / 1e9
    remaining = deadline - time.perf_counter()
    if remaining > SPIN_TAIL_NS / 1e9:
        time.sleep(remaining - SPIN_TAIL_NS / 1e9)
    while time.perf_counter() < deadline:
        pass


BLOCKING: Dict[str, Callable[[int], object]] = {
    "time.sleep": _time_sleep,
    "sleep+spin 2ms": _sleep_then_spin,
    "punctual": punctual.sleep_until_ns,
}


def _quantile(values: List[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass
class Samples:
    """Lateness and CPU of one method at one wait, in nanoseconds."""

    lateness_ns: List[int] = field(default_factory=list)
    cpu_ns: List[int] = field(default_factory=list)
    #: punctual's own account (``Wake.lateness_ns``), taken before the return to Python.
    reported_ns: List[int] = field(default_factory=list)

    def quantile_ns(self, q: float) -> int:
        return _quantile(self.lateness_ns, q)

    @property
    def early(self) -> int:
        return sum(1 for ns in self.lateness_ns if ns < 0)

    @property
    def cpu_per_wait_ns(self) -> float:
        return sum(self.cpu_ns) / len(self.cpu_ns)


def run_blocking(waits_ns: Sequence[int], samples: int) -> Dict[int, Dict[str, Samples]]:
    results = {wait: {name: Samples() for name in BLOCKING} for wait in waits_ns}
    for wait_ns in waits_ns:
        methods = list(BLOCKING.items())
        for i in range(samples):
            # Rotate who goes first, so no method always follows the same one.
            turn = methods[i % len(methods):] + methods[: i % len(methods)]
            for name, method in turn:
                cpu_start = time.thread_time_ns()
                deadline_ns = time.perf_counter_ns() + wait_ns
                wake = method(deadline_ns)
                woke_ns = time.perf_counter_ns()
                cpu_end = time.thread_time_ns()
                record = results[wait_ns][name]
                record.lateness_ns.append(woke_ns - deadline_ns)
                record.cpu_ns.append(cpu_end - cpu_start)
                if isinstance(wake, punctual.Wake):
                    record.reported_ns.append(wake.lateness_ns)
    return results


async def _asyncio_rounds(waits_ns: Sequence[int], samples: int) -> Dict[int, Dict[str, Samples]]:
    results = {wait: {"asyncio.sleep": Samples(), "punctual.asyncio": Samples()} for wait in waits_ns}
    for wait_ns in waits_ns:
        for i in range(samples):
            for name in ("asyncio.sleep", "punctual.asyncio") if i % 2 else ("punctual.asyncio", "asyncio.sleep"):
                deadline_ns = time.perf_counter_ns() + wait_ns
                if name == "asyncio.sleep":
                    await asyncio.sleep(wait_ns / 1e9)
                    results[wait_ns][name].lateness_ns.append(time.perf_counter_ns() - deadline_ns)
                else:
                    wake = await punctual_asyncio.sleep_until_ns(deadline_ns)
                    results[wait_ns][name].lateness_ns.append(time.perf_counter_ns() - deadline_ns)
                    results[wait_ns][name].reported_ns.append(wake.lateness_ns)
    return results


def run_asyncio(waits_ns: Sequence[int], samples: int) -> Dict[int, Dict[str, Samples]]:
    return asyncio.run(_asyncio_rounds(waits_ns, samples))


def _duration(ns: float) -> str:
    if abs(ns) < 1_000:
        return f"{ns:.0f} ns"
    if abs(ns) < 1_000_000:
        return f"{ns / 1e3:.1f} us"
    return f"{ns / 1e6:.2f} ms"


def _wait_name(ns: int) -> str:
    return f"{ns // 1_000_000} ms" if ns % 1_000_000 == 0 else f"{ns // 1_000} us"


def report(blocking: Dict[int, Dict[str, Samples]], asyncio_results: Dict[int, Dict[str, Samples]]) -> List[str]:
    lines = ["| wait | method | p50 | p99 | early | CPU per wait |", "|---|---|---:|---:|---:|---:|"]
    verdicts = []
    for wait_ns, methods in blocking.items():
        for name, s in methods.items():
            share = s.cpu_per_wait_ns / wait_ns * 100
            lines.append(
                f"| {_wait_name(wait_ns)} | {name} | {_duration(s.quantile_ns(0.5))} | {_duration(s.quantile_ns(0.99))}"
                f" | {s.early} | {_duration(s.cpu_per_wait_ns)} ({share:.1f}%) |"
            )
        ours, theirs = methods["punctual"], methods["sleep+spin 2ms"]
        p99_ok = ours.quantile_ns(0.99) <= theirs.quantile_ns(0.99)
        cpu_ratio = ours.cpu_per_wait_ns / theirs.cpu_per_wait_ns
        verdicts.append(
            f"{_wait_name(wait_ns)}: punctual p99 {_duration(ours.quantile_ns(0.99))} vs sleep+spin"
            f" {_duration(theirs.quantile_ns(0.99))} ({'met' if p99_ok else 'NOT met'}: no worse);"
            f" CPU {cpu_ratio:.3f}x of sleep+spin ({'met' if cpu_ratio <= 0.25 else 'NOT met'}: at most 0.25x)"
        )
    lines += ["", "| wait | method | p50 | p99 | early |", "|---|---|---:|---:|---:|"]
    for wait_ns, methods in asyncio_results.items():
        for name, s in methods.items():
            lines.append(
                f"| {_wait_name(wait_ns)} | {name} | {_duration(s.quantile_ns(0.5))}"
                f" | {_duration(s.quantile_ns(0.99))} | {s.early} |"
            )
        ours, theirs = methods["punctual.asyncio"], methods["asyncio.sleep"]
        ratio = ours.quantile_ns(0.5) / max(1, theirs.quantile_ns(0.5))
        verdicts.append(
            f"asyncio {_wait_name(wait_ns)}: punctual median {_duration(ours.quantile_ns(0.5))} vs asyncio.sleep"
            f" {_duration(theirs.quantile_ns(0.5))}, {ratio:.4f}x ({'met' if ratio <= 1 / 20 else 'NOT met'}: at most 1/20)"
        )
    notes = []
    for kind, table in (("", blocking), ("asyncio ", asyncio_results)):
        for wait_ns, methods in table.items():
            for name, s in methods.items():
                if s.reported_ns:
                    notes.append(
                        f"{kind}{_wait_name(wait_ns)}: {name}'s own Wake.lateness p50 {_duration(_quantile(s.reported_ns, 0.5))},"
                        f" p99 {_duration(_quantile(s.reported_ns, 0.99))} (the rest is the way back into Python)"
                    )
    return lines + [""] + verdicts + [""] + notes


def main(argv: Sequence[str] = ()) -> None:
    parser = argparse.ArgumentParser(prog="python -m punctual.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=1000, help="waits per method and length (default 1000)")
    args = parser.parse_args(list(argv) or None)
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"python -m punctual.bench --samples {args.samples}" + (f"   (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})" if load else ""))
    blocking = run_blocking([1_000_000, 10_000_000], args.samples)
    asyncio_results = run_asyncio([100_000, 1_000_000], args.samples)
    print("\n".join(report(blocking, asyncio_results)))
    if load:
        after = os.getloadavg()
        print(f"load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")


if __name__ == "__main__":
    main()
