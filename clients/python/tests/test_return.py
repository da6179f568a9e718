"""The way back into Python: the GIL taken back before the deadline, within its cap, and
the caller's lateness reported. Invariants only: never early on the caller's clock, the
reports in order, the GIL held no longer than the cap; no latency figure is asserted."""

import asyncio
import random
import sys
import threading
import time

import pytest

import punctual
import punctual.asyncio

CAP_NS = round(punctual.clock_info()["gil_spin_cap"] * 1e9)


def check_report(wake, after_ns):
    """The report's readings in order, and the GIL's spin before the deadline within the
    cap. ``after_ns`` is the caller's ``perf_counter_ns()`` read after the return."""
    assert 0 <= wake.sleeper_lateness_ns <= wake.lateness_ns, wake
    assert wake.deadline_ns <= wake.sleeper_woke_ns <= wake.woke_ns <= after_ns, (wake, after_ns)
    assert wake.lateness_ns == wake.woke_ns - wake.deadline_ns
    assert wake.sleeper_lateness_ns == wake.sleeper_woke_ns - wake.deadline_ns
    assert 0 <= wake.gil_spun_ns <= wake.spun_ns
    assert wake.gil_wait_ns >= 0
    # The GIL-held spin runs from the GIL's return to the reading that ended the wait; the
    # part of it before the deadline is what the cap bounds (past the deadline the spin
    # stops at its next reading, unless the OS took the CPU away meanwhile).
    assert wake.gil_spun_ns - wake.sleeper_lateness_ns <= CAP_NS, wake
    if wake.gil_late:
        assert wake.gil_wait_ns > 0 and wake.lateness_ns > 0


def test_the_cap_is_125_us_and_the_leads_within_it():
    assert punctual.clock_info()["gil_spin_cap"] == 125e-6
    for _ in range(100):
        punctual.sleep(0.0002)
    assert 0 < punctual.clock_info()["gil_lead"] <= 25e-6
    assert 0 < punctual.clock_info()["python_lead"] <= 100e-6


def test_never_early_on_the_callers_clock_over_mixed_waits():
    rng = random.Random(29)
    sleepers = [None, punctual.Sleeper("hybrid"), punctual.Sleeper("native"), punctual.Sleeper("spin")]
    tickers = [punctual.Ticker(p, strategy=s) for p, s in ((0.0003, "hybrid"), (0.0001, "spin"), (0.0005, "native"))]
    for i in range(4000):
        if i % 5 == 4:
            tick = next(tickers[i % len(tickers)])
            after_ns = time.perf_counter_ns()
            assert after_ns >= tick.deadline_ns, (i, tick)
            assert tick.lateness_ns == tick.wake.lateness_ns
            check_report(tick.wake, after_ns)
            continue
        sleeper = sleepers[i % len(sleepers)] or punctual
        # Shorter than the lead, around it, and far past it.
        wait_ns = rng.choice([0, rng.randrange(1, 3_000), rng.randrange(3_000, 60_000), rng.randrange(60_000, 1_500_000)])
        if i % 3 == 0:
            deadline = time.perf_counter() + wait_ns / 1e9
            wake = sleeper.sleep_until(deadline)
            after_ns = time.perf_counter_ns()
            assert after_ns / 1e9 >= deadline, (i, deadline, after_ns)
        else:
            deadline_ns = time.perf_counter_ns() + wait_ns
            wake = sleeper.sleep_until_ns(deadline_ns) if i % 3 == 1 else sleeper.sleep(wait_ns / 1e9)
            after_ns = time.perf_counter_ns()
            assert after_ns >= deadline_ns, (i, deadline_ns, after_ns)
        check_report(wake, after_ns)


def test_a_native_wait_spins_for_nothing_and_a_due_one_keeps_the_gil():
    wake = punctual.Sleeper("native").sleep(0.001)
    assert wake.spun_ns == wake.gil_spun_ns == 0
    assert wake.gil_wait_ns > 0
    for sleeper in (punctual, punctual.Sleeper("hybrid"), punctual.Sleeper("spin")):
        assert sleeper.sleep(0).gil_wait_ns == 0
        assert sleeper.sleep_until(-1.0).gil_wait_ns == 0


@pytest.mark.parametrize("strategy", ["hybrid", "spin"])
def test_a_wait_ends_in_a_spin_with_the_gil(strategy):
    sleeper = punctual.Sleeper(strategy)
    wakes = [sleeper.sleep(0.002) for _ in range(20)]
    # Each wait lets the GIL go and takes it back, unless the thread was held up past the
    # lead before the deadline on its way in (a loaded machine): then it keeps the GIL.
    assert any(w.gil_wait_ns > 0 for w in wakes)
    # Each wait whose GIL came back before the deadline spun the rest with it; that is all
    # of them but a slow return now and then (or a native part that overslept).
    assert any(w.gil_spun_ns > 0 for w in wakes)


@pytest.mark.parametrize("strategy", ["hybrid", "spin"])
def test_another_thread_keeps_the_gil_until_the_deadline_nears(strategy):
    # A thread that runs Python without pause holds the GIL whenever it can, so taking it
    # back waits for the switch interval, lengthened here to 20 ms. A lead learned from
    # such re-acquires without the cap would take the GIL back ~30 ms early, before these
    # waits even begin, and keep the other thread off it for the whole wait. With the cap
    # the other thread runs on to the deadline, and the wait reports the GIL late.
    gap_ns = 300_000
    gaps = []  # (start, end) of each stretch longer than gap_ns without the other thread's reading
    stop = threading.Event()
    running = threading.Event()

    def count():
        last = time.perf_counter_ns()
        running.set()
        while not stop.is_set():
            now = time.perf_counter_ns()
            if now - last > gap_ns:
                gaps.append((last, now))
            last = now

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.02)
    worker = threading.Thread(target=count)
    worker.start()
    wakes = []
    try:
        running.wait()
        sleeper = punctual.Sleeper(strategy)
        for _ in range(20):
            wake = sleeper.sleep(0.03)
            after_ns = time.perf_counter_ns()
            assert after_ns >= wake.deadline_ns
            check_report(wake, after_ns)
            wakes.append(wake)
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    assert any(w.gil_late for w in wakes), "the GIL never came back late with another thread holding it"
    # The other thread ran in the window before each deadline unless a gap covers it. The
    # OS may deschedule it for a window now and then on a loaded machine; a GIL kept from
    # before the window would leave every window without progress.
    windows = [(w.deadline_ns - 8_000_000, w.deadline_ns - 1_000_000) for w in wakes]
    progressed = [not any(s <= a and e >= b for s, e in gaps) for a, b in windows]
    assert sum(progressed) >= len(windows) // 4, (strategy, sum(progressed), len(windows))


def test_asyncio_reports_keep_the_order():
    async def main():
        for wait in (0.0001, 0.001, 0.003):
            wake = await punctual.asyncio.sleep(wait)
            after_ns = time.perf_counter_ns()
            assert after_ns >= wake.deadline_ns
            assert 0 <= wake.sleeper_lateness_ns <= wake.lateness_ns <= after_ns - wake.deadline_ns
            assert wake.gil_wait_ns == 0 and not wake.gil_late
        # Counted, not by index: on a loaded machine the "skip" policy may skip any index.
        async with punctual.asyncio.interval(0.001) as ticks:
            for _ in range(4):
                tick = await ticks.tick()
                assert tick.wake.sleeper_woke_ns <= tick.wake.woke_ns <= time.perf_counter_ns()

    asyncio.run(main())


def test_a_hybrid_wait_ends_in_the_packages_python_spin():
    sleeper = punctual.Sleeper("hybrid")
    for _ in range(50):
        deadline_ns = time.perf_counter_ns() + 300_000
        wake = sleeper.sleep_until_ns(deadline_ns)
        after_ns = time.perf_counter_ns()
        check_report(wake, after_ns)
        # The binding returned before the deadline unless it was late: then the wait ended
        # in the Python spin, at its last reading, and that spin is in the report's.
        if wake.sleeper_woke_ns == wake.woke_ns:
            assert wake.gil_spun_ns > 0, wake


def test_a_native_wait_does_not_spin_in_python():
    wake = punctual.Sleeper("native").sleep(0.0005)
    after_ns = time.perf_counter_ns()
    check_report(wake, after_ns)
    assert wake.spun_ns == 0 and wake.gil_spun_ns == 0, wake


def test_a_report_is_finished_once():
    wake = punctual.sleep(0.0001)
    before = (wake.woke_ns, wake.sleeper_woke_ns, wake.spun_ns)
    wake._arrive(2**62)
    assert (wake.woke_ns, wake.sleeper_woke_ns, wake.spun_ns) == before
    tick = next(punctual.Ticker(0.0001))
    woke_ns = tick.wake.woke_ns
    tick._arrive(2**62)
    assert tick.wake.woke_ns == woke_ns
