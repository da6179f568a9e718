"""After fork(): a child whose parent used punctual (the asyncio driver, a blocking sleeper,
a ticker) waits as the parent does, with a driver of its own, and none of the parent's
pending timers in it. Invariants only: never early, the child ends, nothing pending."""

import asyncio
import multiprocessing
import os
import sys
import time

import pytest

import punctual
import punctual.asyncio as pa

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork(): Linux and macOS")

# How long a child may take before the test calls it hung: far past what its waits need.
HUNG_S = 20


def _child_waits() -> str:
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

    asyncio.run(main())
    deadline_ns = time.perf_counter_ns() + 2_000_000
    punctual.sleep_until_ns(deadline_ns)
    assert time.perf_counter_ns() >= deadline_ns
    for tick in zip(range(3), punctual.Ticker(0.001)):
        pass
    return "" if pa.pending() == 0 else f"{pa.pending()} timers left pending in the child"


def _in_process(queue: "multiprocessing.Queue[str]") -> None:
    try:
        queue.put(_child_waits())
    except BaseException as e:  # reported to the parent, which fails the test
        queue.put(f"{type(e).__name__}: {e}")


def _use_everything_with_a_timer_pending() -> "asyncio.AbstractEventLoop":
    """The parent's state at the fork: the driver started, a blocking sleep done, and a
    timer pending far in the future on a loop that is not running."""
    punctual.sleep(0.001)
    asyncio.run(pa.sleep(0.001))
    loop = asyncio.new_event_loop()
    task = loop.create_task(pa.sleep(3600))
    loop.run_until_complete(asyncio.sleep(0))  # polls the task once: its timer is pending
    assert pa.pending() >= 1
    loop.call_soon(task.cancel)
    return loop


def _finish(loop: "asyncio.AbstractEventLoop") -> None:
    loop.run_until_complete(asyncio.sleep(0.01))
    loop.close()


def test_a_bare_fork_child_waits_with_a_driver_of_its_own():
    loop = _use_everything_with_a_timer_pending()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, and never return into pytest
        code = 1
        try:
            os.close(read)
            problem = _child_waits()
            os.write(write, problem.encode() or b"ok")
            code = 0
        except BaseException as e:
            os.write(write, f"{type(e).__name__}: {e}".encode())
        finally:
            os._exit(code)
    os.close(write)
    ended = time.monotonic() + HUNG_S
    while time.monotonic() < ended:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.01)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail(f"the forked child hung for {HUNG_S} s")
    said = os.read(read, 4096).decode()
    os.close(read)
    _finish(loop)
    assert os.waitstatus_to_exitcode(status) == 0 and said == "ok", said
    # The parent's own timers still work after the fork.
    asyncio.run(pa.sleep(0.001))


def test_a_multiprocessing_fork_child_waits():
    loop = _use_everything_with_a_timer_pending()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_process, args=(queue,))
    child.start()
    child.join(HUNG_S)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    _finish(loop)
    assert not hung, f"the forked child hung for {HUNG_S} s"
    assert child.exitcode == 0
    assert queue.get(timeout=5) == ""
