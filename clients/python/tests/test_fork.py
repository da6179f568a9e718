"""After fork(): a child whose parent used punctual (the asyncio driver, a blocking sleeper,
a ticker) waits as the parent does, with a driver of its own, and none of the parent's
pending timers in it: the parent's timer, due 30 ms after it was set, is delivered in the
parent and never in the child, whose waits go past that deadline. Invariants only: never
early, the child ends, nothing pending, no delivery of the parent's timer in the child."""

import asyncio
import multiprocessing
import os
import sys
import time
from typing import List, NamedTuple, Tuple

import pytest

import punctual
import punctual.asyncio as pa

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork(): Linux and macOS")

# How long a child may take before the test calls it hung: far past what its waits need.
HUNG_S = 20
# The parent's timer: short, so that the child's waits run past its deadline.
PARENT_TIMER_S = 0.03


class Parent(NamedTuple):
    """The parent's timer pending at the fork: its loop, its task, its deadline, and every
    delivery to its loop as (pid, perf_counter_ns), recorded by whichever process made it."""

    loop: "asyncio.AbstractEventLoop"
    task: "asyncio.Task[punctual.Wake]"
    deadline_ns: int
    deliveries: List[Tuple[int, int]]


def _child_waits(parent: Parent) -> str:
    """What the child checks; returns what went wrong, or an empty string."""
    if pa.pending() != 0:
        return f"the child inherited {pa.pending()} pending timers"

    async def main() -> None:
        for wait_s in (0.01, 0.0005, 0):
            deadline_ns = time.perf_counter_ns() + int(wait_s * 1e9)
            wake = await pa.sleep_until_ns(deadline_ns)
            assert time.perf_counter_ns() >= deadline_ns, wake
        ticks = 0
        async for tick in pa.interval(0.002):
            assert time.perf_counter_ns() >= tick.deadline_ns
            ticks += 1
            if ticks == 3:
                break
        # Past the parent's deadline, on this process's own driver: had the parent's timer
        # come along into it, it would fire first (the driver fires in deadline order) and
        # be delivered to the parent's loop before this sleep's own wake comes back.
        await pa.sleep_until_ns(max(parent.deadline_ns, time.perf_counter_ns()) + 20_000_000)

    asyncio.run(main())
    me = os.getpid()
    in_child = [at for pid, at in parent.deliveries if pid == me]
    if in_child:
        return f"the parent's timer was delivered in the child ({len(in_child)} times)"
    deadline_ns = time.perf_counter_ns() + 2_000_000
    punctual.sleep_until_ns(deadline_ns)
    assert time.perf_counter_ns() >= deadline_ns
    for tick in zip(range(3), punctual.Ticker(0.001)):
        pass
    return "" if pa.pending() == 0 else f"{pa.pending()} timers left pending in the child"


def _in_process(parent: Parent, queue: "multiprocessing.Queue[str]") -> None:
    try:
        queue.put(_child_waits(parent))
    except BaseException as e:  # reported to the parent, which fails the test
        queue.put(f"{type(e).__name__}: {e}")


def _use_everything_with_a_timer_pending() -> Parent:
    """The parent's state at the fork: the driver started, a blocking sleep done, and a
    timer due in 30 ms pending on a loop that is not running, every delivery to that loop
    recorded with the process that made it."""
    punctual.sleep(0.001)
    asyncio.run(pa.sleep(0.001))
    loop = asyncio.new_event_loop()
    deliveries: List[Tuple[int, int]] = []
    hand_over = loop.call_soon_threadsafe

    def recorded(callback, *args, **kwargs):  # type: ignore[no-untyped-def]
        deliveries.append((os.getpid(), time.perf_counter_ns()))
        return hand_over(callback, *args, **kwargs)

    loop.call_soon_threadsafe = recorded  # type: ignore[method-assign]
    deadline_ns = time.perf_counter_ns() + int(PARENT_TIMER_S * 1e9)
    task = loop.create_task(pa.sleep_until_ns(deadline_ns))
    loop.run_until_complete(asyncio.sleep(0))  # polls the task once: its timer is pending
    assert pa.pending() >= 1
    return Parent(loop, task, deadline_ns, deliveries)


def _fired_in_parent(parent: Parent) -> None:
    """The parent's timer, fired in the parent while the child runs: never early, delivered
    here. (Run at once, so that the trip it records is a real one: a timer delivered to a
    loop left stopped for the child's whole run would teach punctual.asyncio that the way
    to a task takes that long.)"""
    try:
        wake = parent.loop.run_until_complete(asyncio.wait_for(parent.task, HUNG_S))
    finally:
        parent.loop.close()
    assert time.perf_counter_ns() >= parent.deadline_ns and wake.deadline_ns == parent.deadline_ns
    assert any(pid == os.getpid() for pid, _ in parent.deliveries), "the parent's timer was never delivered"


def _reap(pid: int) -> int:
    """The child's exit status; it is killed and the test fails when it hangs."""
    ended = time.monotonic() + HUNG_S
    while time.monotonic() < ended:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked child hung for {HUNG_S} s")


def test_a_bare_fork_child_waits_with_a_driver_of_its_own():
    parent = _use_everything_with_a_timer_pending()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, and never return into pytest
        code = 1
        try:
            os.close(read)
            problem = _child_waits(parent)
            os.write(write, problem.encode() or b"ok")
            code = 0
        except BaseException as e:
            os.write(write, f"{type(e).__name__}: {e}".encode())
        finally:
            os._exit(code)
    os.close(write)
    try:
        _fired_in_parent(parent)
    finally:
        status = _reap(pid)
    said = os.read(read, 4096).decode()
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0 and said == "ok", said
    # The parent's own timers still work after the fork.
    asyncio.run(pa.sleep(0.001))


def test_a_multiprocessing_fork_child_waits():
    parent = _use_everything_with_a_timer_pending()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_process, args=(parent, queue))
    child.start()
    try:
        _fired_in_parent(parent)
    finally:
        child.join(HUNG_S)
        hung = child.is_alive()
        if hung:
            child.kill()
            child.join()
    assert not hung, f"the forked child hung for {HUNG_S} s"
    assert child.exitcode == 0
    assert queue.get(timeout=5) == ""
