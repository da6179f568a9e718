"""How late each way to wait wakes here, in one interleaved run.

    python -m punctual.bench                        # everything below, about 80 s
    python -m punctual.bench --samples 200          # fewer waits per method and length
    python -m punctual.bench --parts control --control-seconds 30 --rates 100,500,1000
    python -m punctual.bench --quick                # a few seconds, for CI: checks it runs

Blocking waits, each to a deadline on ``time.perf_counter_ns()``, the methods taking turns
wait by wait so that every one sees the same machine:

- ``time.sleep``: the remaining time, as a loop would sleep it;
- ``sleep+spin 2ms``: ``time.sleep`` to 2 ms before the deadline, then a busy wait on
  ``time.perf_counter()``, the ``precise_sleep`` robotics and control loops write by hand;
- ``punctual``: ``punctual.sleep_until_ns``, the hybrid sleeper.

Lateness is the reading of ``perf_counter_ns()`` right after the wait, minus the deadline;
CPU is ``time.thread_time_ns()`` over the wait. Then ``asyncio.sleep`` against
``punctual.asyncio.sleep_until_ns``, alternating, on one event loop.

Then the control loop, at each ``--rates`` (100 Hz and 1 kHz): ticks on a fixed grid
(``next += period``, no tick skipped), the hand-rolled loop (``sleep+spin 2ms`` to each
tick; at 1 kHz, a period under 2 ms, it never sleeps) against ``punctual.Ticker(period,
policy="burst")``. Each loop runs ``--warmup-ticks`` before it is measured, then ticks for
its share of ``--control-seconds``; the two take turns, ``--control-rounds`` stretches each.
The same ruler for both: lateness is ``perf_counter_ns()`` read right after the tick
returns to the loop, minus the tick's deadline; cores are the process's CPU time
(``time.process_time_ns()``) over the wall time of the measured ticks.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

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
    #: punctual's own account of the caller's lateness (``Wake.lateness_ns``): the last
    #: reading of its Python spin, just before the return into the caller's code.
    reported_ns: List[int] = field(default_factory=list)
    #: ``Wake.sleeper_lateness_ns``: the reading that ended the wait itself.
    sleeper_ns: List[int] = field(default_factory=list)

    def record_wake(self, wake: object) -> None:
        if isinstance(wake, (punctual.Wake, punctual.Tick)):
            inner = wake.wake if isinstance(wake, punctual.Tick) else wake
            self.reported_ns.append(inner.lateness_ns)
            self.sleeper_ns.append(inner.sleeper_lateness_ns)

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
                record.record_wake(wake)
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
                    results[wait_ns][name].record_wake(wake)
    return results


def run_asyncio(waits_ns: Sequence[int], samples: int) -> Dict[int, Dict[str, Samples]]:
    return asyncio.run(_asyncio_rounds(waits_ns, samples))


#: The loops of the control-loop part, by name.
CONTROL = ("hand-rolled sleep+spin 2ms", "punctual.Ticker")


@dataclass
class ControlSamples(Samples):
    """One loop at one rate: lateness per tick (``lateness_ns``), and the process's CPU
    time and the wall time over the measured ticks."""

    process_cpu_ns: int = 0
    wall_ns: int = 0

    @property
    def cores(self) -> float:
        return self.process_cpu_ns / self.wall_ns if self.wall_ns else 0.0


def _hand_rolled(period_ns: int, warmup: int, ticks: int, record: ControlSamples) -> None:
    deadline_ns = time.perf_counter_ns() + period_ns
    for _ in range(warmup):
        _sleep_then_spin(deadline_ns)
        deadline_ns += period_ns
    cpu_start, wall_start = time.process_time_ns(), time.perf_counter_ns()
    for _ in range(ticks):
        _sleep_then_spin(deadline_ns)
        record.lateness_ns.append(time.perf_counter_ns() - deadline_ns)
        deadline_ns += period_ns
    record.process_cpu_ns += time.process_time_ns() - cpu_start
    record.wall_ns += time.perf_counter_ns() - wall_start


def _ticker(period_ns: int, warmup: int, ticks: int, record: ControlSamples) -> None:
    ticker = punctual.Ticker(period_ns / 1e9, policy="burst")
    for _ in range(warmup):
        next(ticker)
    cpu_start, wall_start = time.process_time_ns(), time.perf_counter_ns()
    for _ in range(ticks):
        tick = next(ticker)
        record.lateness_ns.append(time.perf_counter_ns() - tick.deadline_ns)
        record.record_wake(tick)
    record.process_cpu_ns += time.process_time_ns() - cpu_start
    record.wall_ns += time.perf_counter_ns() - wall_start


_LOOPS: Dict[str, Callable[[int, int, int, ControlSamples], None]] = {
    "hand-rolled sleep+spin 2ms": _hand_rolled,
    "punctual.Ticker": _ticker,
}


def run_control(
    rates_hz: Sequence[int], seconds: float, *, warmup_ticks: int = 100, rounds: int = 2
) -> Dict[int, Dict[str, ControlSamples]]:
    """Each loop at each rate for ``seconds`` of measured ticks, in ``rounds`` stretches
    taking turns, each stretch after ``warmup_ticks`` of its own."""
    results = {rate: {name: ControlSamples() for name in CONTROL} for rate in rates_hz}
    for rate in rates_hz:
        period_ns = round(1e9 / rate)
        ticks = max(1, round(seconds * rate / rounds))
        for r in range(rounds):
            order = CONTROL if r % 2 == 0 else CONTROL[::-1]
            for name in order:
                _LOOPS[name](period_ns, warmup_ticks, ticks, results[rate][name])
    return results


def _duration(ns: float) -> str:
    if abs(ns) < 1_000:
        return f"{ns:.0f} ns"
    if abs(ns) < 1_000_000:
        return f"{ns / 1e3:.1f} us"
    return f"{ns / 1e6:.2f} ms"


def _wait_name(ns: int) -> str:
    return f"{ns // 1_000_000} ms" if ns % 1_000_000 == 0 else f"{ns // 1_000} us"


def _rate_name(hz: int) -> str:
    return f"{hz // 1000} kHz" if hz % 1000 == 0 else f"{hz} Hz"


def _blocking_lines(blocking: Dict[int, Dict[str, Samples]]) -> Tuple[List[str], List[str]]:
    lines = ["| wait | method | p50 | p90 | p99 | early | CPU per wait |", "|---|---|---:|---:|---:|---:|---:|"]
    verdicts = []
    for wait_ns, methods in blocking.items():
        for name, s in methods.items():
            share = s.cpu_per_wait_ns / wait_ns * 100
            lines.append(
                f"| {_wait_name(wait_ns)} | {name} | {_duration(s.quantile_ns(0.5))} | {_duration(s.quantile_ns(0.9))}"
                f" | {_duration(s.quantile_ns(0.99))} | {s.early} | {_duration(s.cpu_per_wait_ns)} ({share:.1f}%) |"
            )
        ours, theirs = methods["punctual"], methods["sleep+spin 2ms"]
        p50, p90 = ours.quantile_ns(0.5), ours.quantile_ns(0.9)
        cpu_ratio = ours.cpu_per_wait_ns / max(1.0, theirs.cpu_per_wait_ns)
        verdicts.append(
            f"{_wait_name(wait_ns)}: punctual p50 {_duration(p50)} ({'met' if p50 <= 2_000 else 'NOT met'}: at most 2 us),"
            f" p90 {_duration(p90)} ({'met' if p90 <= 10_000 else 'NOT met'}: at most 10 us);"
            f" p99 {_duration(ours.quantile_ns(0.99))} vs sleep+spin's {_duration(theirs.quantile_ns(0.99))};"
            f" CPU {cpu_ratio:.3f}x of sleep+spin's"
        )
    return lines, verdicts


def _asyncio_lines(asyncio_results: Dict[int, Dict[str, Samples]]) -> Tuple[List[str], List[str]]:
    lines = ["| wait | method | p50 | p99 | early |", "|---|---|---:|---:|---:|"]
    verdicts = []
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
    return lines, verdicts


def _control_lines(control: Dict[int, Dict[str, ControlSamples]]) -> Tuple[List[str], List[str]]:
    lines = ["| rate | loop | ticks | p50 | p90 | p99 | early | cores |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    verdicts = []
    for rate, loops in control.items():
        for name, s in loops.items():
            lines.append(
                f"| {_rate_name(rate)} | {name} | {len(s.lateness_ns)} | {_duration(s.quantile_ns(0.5))}"
                f" | {_duration(s.quantile_ns(0.9))} | {_duration(s.quantile_ns(0.99))} | {s.early} | {s.cores:.3f} |"
            )
        ours, theirs = loops["punctual.Ticker"], loops["hand-rolled sleep+spin 2ms"]
        p50 = ours.quantile_ns(0.5)
        p99_ok = ours.quantile_ns(0.99) <= theirs.quantile_ns(0.99) and ours.cores <= theirs.cores
        verdicts.append(
            f"control {_rate_name(rate)}: Ticker p50 {_duration(p50)} ({'met' if p50 <= 2_000 else 'NOT met'}: at most 2 us);"
            f" Ticker p99 {_duration(ours.quantile_ns(0.99))} vs hand-rolled"
            f" {_duration(theirs.quantile_ns(0.99))} at {ours.cores:.3f} cores vs {theirs.cores:.3f}"
            f" ({'met' if p99_ok else 'NOT met'}: no worse, at no more CPU)"
        )
    return lines, verdicts


def _notes(tables: Sequence[Tuple[str, Mapping[int, Mapping[str, Samples]], Callable[[int], str]]]) -> List[str]:
    notes = []
    for kind, table, name_of in tables:
        for key, methods in table.items():
            for name, s in methods.items():
                if s.reported_ns:
                    notes.append(
                        f"{kind}{name_of(key)}: {name}'s own account: Wake.lateness (the last reading of its"
                        f" Python spin, before the return) p50 {_duration(_quantile(s.reported_ns, 0.5))}, p99 {_duration(_quantile(s.reported_ns, 0.99))};"
                        f" Wake.sleeper_lateness (the wait's own) p50 {_duration(_quantile(s.sleeper_ns, 0.5))},"
                        f" p99 {_duration(_quantile(s.sleeper_ns, 0.99))}"
                    )
    return notes


def report(
    blocking: Dict[int, Dict[str, Samples]],
    asyncio_results: Dict[int, Dict[str, Samples]],
    control: Optional[Dict[int, Dict[str, ControlSamples]]] = None,
) -> List[str]:
    """The tables, the targets as judged in this run, and punctual's own accounts; a part
    left empty is left out."""
    sections = []
    if blocking:
        sections.append(_blocking_lines(blocking))
    if asyncio_results:
        sections.append(_asyncio_lines(asyncio_results))
    if control:
        sections.append(_control_lines(control))
    lines: List[str] = []
    verdicts: List[str] = []
    for table, judged in sections:
        lines += ([""] if lines else []) + table
        verdicts += judged
    notes = _notes(
        [("", blocking, _wait_name), ("asyncio ", asyncio_results, _wait_name), ("control ", control or {}, _rate_name)]
    )
    return lines + [""] + verdicts + [""] + notes


PARTS = ("blocking", "asyncio", "control")


def _rates(text: str) -> List[int]:
    try:
        rates = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"rates are whole numbers of Hz, comma-separated; got {text!r}") from None
    if not rates or any(rate < 1 or rate > 100_000 for rate in rates):
        raise argparse.ArgumentTypeError(f"each rate is 1 to 100000 Hz; got {text!r}")
    return rates


def _parts(text: str) -> List[str]:
    parts = text.split(",")
    unknown = [part for part in parts if part not in PARTS]
    if unknown or not parts:
        raise argparse.ArgumentTypeError(f"parts are {', '.join(PARTS)}; got {text!r}")
    return parts


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m punctual.bench", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--samples", type=int, default=None, help="waits per method and length (default 1000)")
    parser.add_argument("--parts", type=_parts, default=list(PARTS), help="which parts, comma-separated (default blocking,asyncio,control)")
    parser.add_argument("--rates", type=_rates, default=[100, 1000], help="control-loop rates in Hz, comma-separated (default 100,1000)")
    parser.add_argument("--control-seconds", type=float, default=None, help="measured seconds per loop and rate (default 10)")
    parser.add_argument("--control-rounds", type=int, default=2, help="stretches each loop's seconds are cut into, the loops taking turns (default 2)")
    parser.add_argument("--warmup-ticks", type=int, default=None, help="ticks each stretch runs before it is measured (default 100)")
    parser.add_argument("--quick", action="store_true", help="a few seconds in all (20 samples, 0.2 s per loop, 5 warm-up ticks): checks that it runs, figures mean nothing")
    args = parser.parse_args(argv)
    quick = args.quick
    samples = args.samples if args.samples is not None else (20 if quick else 1000)
    seconds = args.control_seconds if args.control_seconds is not None else (0.2 if quick else 10.0)
    warmup = args.warmup_ticks if args.warmup_ticks is not None else (5 if quick else 100)
    if samples < 1:
        parser.error("--samples must be at least 1")
    if not seconds > 0 or math.isinf(seconds):
        parser.error("--control-seconds must be a positive number of seconds")
    if args.control_rounds < 1:
        parser.error("--control-rounds must be at least 1")
    if warmup < 0:
        parser.error("--warmup-ticks must not be negative")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    shown = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"python -m punctual.bench {shown}".rstrip() + (f"   (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})" if load else ""))
    blocking = run_blocking([1_000_000, 10_000_000], samples) if "blocking" in args.parts else {}
    asyncio_results = run_asyncio([100_000, 1_000_000], samples) if "asyncio" in args.parts else {}
    control = run_control(args.rates, seconds, warmup_ticks=warmup, rounds=args.control_rounds) if "control" in args.parts else {}
    print("\n".join(report(blocking, asyncio_results, control)))
    if load:
        after = os.getloadavg()
        print(f"load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")


if __name__ == "__main__":
    main()
