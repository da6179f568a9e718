"""Blocking sleeps: never early, the GIL released, the clock conversion exact."""

import math
import random
import sys
import threading
import time
from fractions import Fraction

import pytest

import punctual


def expected_ns(seconds):
    """The first nanosecond whose float of seconds, as time.perf_counter() makes it, is not
    less than ``seconds``."""
    ns = math.floor(Fraction(seconds) * 10**9) - 1
    while ns / 1e9 < seconds:
        ns += 1
    while (ns - 1) / 1e9 >= seconds:
        ns -= 1
    return ns


def test_never_early_over_10000_mixed_sleeps():
    rng = random.Random(17)
    sleepers = [None, punctual.Sleeper("hybrid"), punctual.Sleeper("native"), punctual.Sleeper("spin")]
    checked = 0
    for i in range(10_000):
        sleeper = sleepers[i % len(sleepers)]
        wait_ns = rng.choice([0, 1, rng.randrange(1, 2_000), rng.randrange(2_000, 200_000)])
        form = i % 3
        if form == 0:
            start = time.perf_counter_ns()
            wake = (sleeper or punctual).sleep(wait_ns / 1e9)
            after = time.perf_counter_ns()
            assert after - start >= wait_ns, (i, wait_ns, after - start)
        elif form == 1:
            deadline = time.perf_counter() + wait_ns / 1e9
            wake = (sleeper or punctual).sleep_until(deadline)
            after = time.perf_counter()
            assert after >= deadline, (i, deadline, after)
            assert wake.deadline_ns == expected_ns(deadline)
        else:
            deadline_ns = time.perf_counter_ns() + wait_ns
            wake = (sleeper or punctual).sleep_until_ns(deadline_ns)
            after = time.perf_counter_ns()
            assert after >= deadline_ns, (i, deadline_ns, after)
            assert wake.deadline_ns == deadline_ns
        assert wake.woke_ns >= wake.deadline_ns
        assert wake.lateness_ns == wake.woke_ns - wake.deadline_ns >= 0
        assert wake.spun_ns >= 0
        checked += 1
    assert checked == 10_000


def test_float_deadlines_convert_to_the_first_nanosecond_not_before_them():
    rng = random.Random(3)
    now = time.perf_counter()
    samples = [now * rng.random() for _ in range(2000)] + [0.0, 1e-9, 1.5e-9, 2.9999999999e-9, 1 / 3, -1e-12, -2.5]
    for deadline in samples:
        # A past deadline returns at once, reporting the deadline as converted.
        ns = punctual.sleep_until(deadline).deadline_ns
        assert ns == expected_ns(deadline), deadline
        assert ns / 1e9 >= deadline and (ns - 1) / 1e9 < deadline
    assert punctual.sleep_until(0.001).deadline_ns == 1_000_000
    assert punctual.Sleeper().sleep(0.001).lateness_ns >= 0


def test_ints_are_exact_seconds():
    assert punctual.sleep_until(1).deadline_ns == 1_000_000_000
    assert punctual.sleep_until_ns(-5).deadline_ns == -5
    start = time.perf_counter_ns()
    wake = punctual.sleep(0)
    assert wake.deadline_ns >= start and wake.lateness_ns >= 0


@pytest.mark.parametrize("strategy", ["hybrid", "native", "spin", None])
def test_another_thread_runs_during_a_sleep(strategy):
    stop = threading.Event()
    progress = []

    def count():
        while not stop.is_set():
            progress.append(time.perf_counter_ns())

    worker = threading.Thread(target=count)
    worker.start()
    try:
        while not progress:
            time.sleep(0.001)
        start_ns = time.perf_counter_ns()
        if strategy is None:
            wake = punctual.sleep(0.3)
        else:
            wake = punctual.Sleeper(strategy).sleep(0.3)
    finally:
        stop.set()
        worker.join()
    # Only with the GIL released can the other thread append while this one waits.
    during = [t for t in progress if start_ns + 50_000_000 < t < wake.deadline_ns - 50_000_000]
    assert during, f"no progress by another thread during the sleep ({strategy})"


def test_ticker_and_poll_release_the_gil():
    stop = threading.Event()
    progress = []

    def count():
        while not stop.is_set():
            progress.append(time.perf_counter_ns())

    worker = threading.Thread(target=count)
    worker.start()
    try:
        ticker = punctual.Ticker(0.3, strategy="spin")
        tick = next(ticker)
        start_poll = time.perf_counter_ns()
        with pytest.raises(punctual.PollTimeout):
            punctual.poll_until(lambda: False, timeout=0.3, step=0.3)
        end_poll = time.perf_counter_ns()
    finally:
        stop.set()
        worker.join()
    assert [t for t in progress if tick.deadline_ns - 250_000_000 < t < tick.deadline_ns - 50_000_000]
    assert [t for t in progress if start_poll + 50_000_000 < t < end_poll - 50_000_000]


def test_sleeper_reports_its_strategy_and_counters():
    sleeper = punctual.Sleeper("spin")
    wake = sleeper.sleep(0.0002)
    assert sleeper.strategy == "spin"
    assert sleeper.stats["sleeps"] == 1
    assert wake.spun_ns > 0
    assert "spin" in repr(sleeper)
    assert punctual.Sleeper().strategy == "hybrid"


def test_wake_floats_match_the_ints():
    wake = punctual.sleep(0.0001)
    assert wake.deadline == wake.deadline_ns / 1e9
    assert wake.woke == wake.woke_ns / 1e9
    assert wake.lateness == wake.lateness_ns / 1e9
    assert "Wake(" in repr(wake)


@pytest.mark.skipif(sys.platform != "linux", reason="the clock names checked are Linux's")
def test_python_clocks_are_the_librarys_on_linux():
    # Rust's Instant reads CLOCK_MONOTONIC on Linux; so do both of these.
    assert time.get_clock_info("perf_counter").implementation == "clock_gettime(CLOCK_MONOTONIC)"
    assert time.get_clock_info("monotonic").implementation == "clock_gettime(CLOCK_MONOTONIC)"
    assert punctual.clock_info()["clock"] == "time.perf_counter"
    assert 0 <= punctual.clock_info()["frame_spread_ns"] < 1_000_000


def test_timer_info_names_the_mechanism():
    info = punctual.timer_info()
    assert info["mechanism"]
    assert isinstance(info["high_resolution"], bool)
