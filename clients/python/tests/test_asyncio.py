"""punctual.asyncio: never early, cancellation removes the timer, the right loop wakes."""

import asyncio
import random
import threading
import time

import pytest

import punctual
import punctual.asyncio as pa


def run(coroutine):
    return asyncio.run(coroutine)


def test_never_early_over_2000_mixed_sleeps():
    async def main():
        rng = random.Random(5)
        for i in range(2000):
            wait_ns = rng.choice([0, rng.randrange(1, 5_000), rng.randrange(5_000, 300_000)])
            if i % 2:
                deadline_ns = time.perf_counter_ns() + wait_ns
                wake = await pa.sleep_until_ns(deadline_ns)
                assert time.perf_counter_ns() >= deadline_ns
                assert wake.deadline_ns == deadline_ns
            else:
                deadline = time.perf_counter() + wait_ns / 1e9
                wake = await pa.sleep_until(deadline)
                assert time.perf_counter() >= deadline
            assert wake.lateness_ns >= 0

    run(main())
    assert pa.pending() == 0


@pytest.fixture
def long_handoff(monkeypatch):
    """The way from the driver to a task taken as one second long: every sleep shorter
    than that keeps its loop turning (but the driver's one in 16). Returns the list of
    the driver's wakes delivered to a task."""
    monkeypatch.setattr(pa._handoff, "_window_ns", 1_000_000_000)
    delivered = []
    monkeypatch.setattr(pa._handoff, "record", delivered.append)
    return delivered


def test_sleeps_shorter_than_the_handoff_turn_the_loop_and_are_never_early(long_handoff):
    async def main():
        turns = 0

        async def other():
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        neighbour = asyncio.create_task(other())
        rng = random.Random(7)
        turned = 0
        for _ in range(400):
            deadline_ns = time.perf_counter_ns() + rng.randrange(100_000, 1_000_000)
            before = turns
            wake = await pa.sleep_until_ns(deadline_ns)
            assert time.perf_counter_ns() >= deadline_ns
            assert wake.lateness_ns >= 0
            turned += turns > before + 1
        neighbour.cancel()
        # Only the probes (one in 16) went through the driver; the other task ran during
        # the sleeps that kept the loop turning instead.
        assert len(long_handoff) <= 400 // 16 + 1, len(long_handoff)
        assert turned >= 300, turned

    run(main())
    assert pa.pending() == 0


def test_cancelling_a_sleep_that_turns_the_loop(long_handoff):
    async def main():
        task = asyncio.create_task(pa.sleep(0.5))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert pa.pending() == 0

    run(main())


def test_interval_ticks_closer_than_the_handoff_turn_the_loop_on_the_grid(long_handoff, monkeypatch):
    turned = []
    turn_until = pa._turn_until

    async def counted(deadline_ns):
        turned.append(deadline_ns)
        await turn_until(deadline_ns)

    monkeypatch.setattr(pa, "_turn_until", counted)

    async def main():
        # Long enough that a slow (debug, loaded) run still asks for most ticks ahead of time.
        period_ns = 5_000_000
        interval = pa.interval(period_ns / 1e9)
        origin = None
        last = -1
        ahead = 0
        async with interval:
            for _ in range(40):
                ahead += interval._inner.next_deadline_ns > time.perf_counter_ns()
                tick = await interval.tick()
                assert time.perf_counter_ns() >= tick.deadline_ns
                if origin is None:
                    origin = tick.deadline_ns - tick.index * period_ns
                assert tick.deadline_ns == origin + tick.index * period_ns
                assert tick.index > last
                last = tick.index
        # The ticks still ahead when asked for kept the loop turning to their deadline, but
        # the probes (one in 16) and any whose deadline passed on the way.
        assert ahead >= 10, ahead
        assert len(turned) >= ahead // 2, (len(turned), ahead)

    run(main())
    assert pa.pending() == 0


def test_the_handoff_is_learned_from_the_drivers_wakes():
    async def main():
        for _ in range(40):
            await pa.sleep(0.002)

    run(main())
    assert pa.handoff_ns() > 0


def test_cancelling_a_sleep_removes_its_timer():
    async def main():
        tasks = [asyncio.create_task(pa.sleep(10)) for _ in range(100)]
        await asyncio.sleep(0.05)
        assert pa.pending() == 100
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in results)
        assert pa.pending() == 0

    run(main())


def test_wait_for_timeout_removes_the_timer():
    async def main():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(pa.sleep(10), timeout=0.02)
        assert pa.pending() == 0

    run(main())


def test_each_loop_wakes_its_own_task():
    seen = {}
    together = threading.Barrier(4)

    def in_thread(name):
        async def main():
            together.wait()  # all four loops sleep at once, on one driver
            before = (threading.get_ident(), id(asyncio.get_running_loop()))
            await pa.sleep(0.01)
            seen[name] = (before, (threading.get_ident(), id(asyncio.get_running_loop())))
            together.wait()  # and stay alive until all are done: thread ids are not reused

        asyncio.run(main())

    threads = [threading.Thread(target=in_thread, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(seen) == 4
    assert all(before == after for before, after in seen.values())
    assert len({before for before, _ in seen.values()}) == 4


def test_other_tasks_run_while_one_sleeps():
    async def main():
        ran = []

        async def other():
            for _ in range(10):
                ran.append(time.perf_counter_ns())
                await asyncio.sleep(0)

        start = time.perf_counter_ns()
        results = await asyncio.gather(pa.sleep(0.05), other())
        assert len(ran) == 10 and ran[-1] < results[0].deadline_ns and ran[0] >= start

    run(main())


def test_interval_ticks_on_the_grid():
    async def main():
        ticks = []
        async with pa.interval(0.001, policy="burst") as interval:
            async for tick in interval:
                ticks.append(tick)
                if len(ticks) == 20:
                    break
        assert [t.index for t in ticks] == list(range(20))
        assert all(t.deadline_ns - ticks[0].deadline_ns == k * 1_000_000 for k, t in enumerate(ticks))
        assert all(t.wake.woke_ns >= t.deadline_ns for t in ticks)
        assert pa.pending() == 0

    run(main())


def test_interval_skip_counts_missed_ticks():
    async def main():
        # Grid points 3.5, 2.5, 1.5 and 0.5 s ago are past; the next, 0.5 s ahead, is tick 4
        # unless the call itself took half a second (a wide margin for a loaded machine).
        interval = pa.interval(1.0, first=time.perf_counter() - 3.5)
        tick = await interval.tick()
        interval.close()
        assert (tick.index, tick.missed) == (4, 4)
        with pytest.raises(RuntimeError):
            await interval.tick()

    run(main())


def test_driver_stats_count_wakes():
    async def main():
        # A sleep whose task is first polled after its deadline (the thread preempted
        # between making the timer and awaiting it) ends without the driver: one of five
        # 10 ms sleeps at least is parked and fired by it.
        before = pa.driver_stats()["wakes"]
        for _ in range(5):
            await pa.sleep(0.01)
        assert pa.driver_stats()["wakes"] > before

    run(main())
