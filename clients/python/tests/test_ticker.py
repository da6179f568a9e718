"""Ticker: exact grid arithmetic and the three missed-tick policies."""

import itertools
import time

import pytest

import punctual

MS = 1_000_000


def test_ticks_sit_on_the_grid_exactly():
    ticker = punctual.Ticker(0.001, policy="burst")
    ticks = list(itertools.islice(ticker, 50))
    first = ticks[0].deadline_ns
    for k, tick in enumerate(ticks):
        assert tick.index == k
        assert tick.deadline_ns - first == k * MS
        assert tick.wake.woke_ns >= tick.deadline_ns
        assert tick.lateness_ns >= 0
    assert ticker.next_index == 50


def test_first_tick_one_period_from_now():
    before = time.perf_counter_ns()
    tick = next(punctual.Ticker(0.002))
    assert tick.index == 0
    assert tick.deadline_ns >= before + 2 * MS


def test_skip_drops_the_overdue_ticks():
    period = 1.0
    first = time.perf_counter() - 3.9 * period
    ticker = punctual.Ticker(period, first=first)
    tick = next(ticker)
    assert (tick.index, tick.missed) == (4, 4)
    assert ticker.missed == 4
    assert tick.deadline_ns - punctual.sleep_until(first).deadline_ns == 4 * 1_000_000_000


def test_burst_fires_every_overdue_tick():
    first = time.perf_counter() - 3.5 * 0.05
    ticker = punctual.Ticker(0.05, first=first, policy="burst")
    ticks = [next(ticker) for _ in range(5)]
    assert [t.index for t in ticks] == [0, 1, 2, 3, 4]
    assert all(t.missed == 0 for t in ticks)
    assert ticks[0].lateness > 0.15


def test_delay_moves_the_grid_to_the_late_tick():
    first = time.perf_counter() - 3.5 * 0.05
    ticker = punctual.Ticker(0.05, first=first, policy="delay")
    late = next(ticker)
    assert (late.index, late.missed) == (0, 3)
    following = next(ticker)
    assert following.index == 1
    assert following.deadline_ns == late.wake.sleeper_woke_ns + 50 * MS


def test_ticker_properties():
    ticker = punctual.Ticker(0.25, policy="delay", strategy="native")
    assert ticker.period == 0.25
    assert ticker.policy == "delay"
    assert ticker.deadline_of(4) - ticker.deadline_of(0) == pytest.approx(1.0, abs=1e-9)
    assert "Ticker(" in repr(ticker)


def test_missed_is_the_old_name_of_policy_kept_with_a_deprecation_warning() -> None:
    import asyncio

    import punctual.asyncio as pa

    with pytest.warns(DeprecationWarning, match="policy="):
        ticker = punctual.Ticker(0.001, missed="burst")
    assert ticker.policy == "burst"
    with pytest.raises(TypeError, match="policy= only"):
        punctual.Ticker(0.001, policy="skip", missed="burst")
    assert punctual.Ticker(0.001).policy == "skip"

    async def old_name() -> str:
        with pytest.warns(DeprecationWarning, match="policy="):
            interval = pa.interval(0.001, missed="delay")
        interval.close()
        return "ok"

    with pytest.raises(TypeError, match="policy= only"):
        pa.interval(0.001, policy="skip", missed="burst")
    assert asyncio.run(old_name()) == "ok"
