"""Bad input: a clear ValueError or TypeError naming the argument, nothing waited."""

import asyncio
import math

import pytest

import punctual
import punctual.asyncio as pa

NOT_NUMBERS = ["1", None, [1], object(), True, 1j]
BAD_WAITS = [-1, -1e-12, -0.5, math.nan, math.inf, -math.inf, 1e300, 2**70, 9_223_372_037]


@pytest.mark.parametrize("value", BAD_WAITS)
@pytest.mark.parametrize("call", [punctual.sleep, punctual.Sleeper().sleep, punctual.Deadline, punctual.Deadline.after])
def test_bad_waits_are_value_errors(call, value):
    with pytest.raises(ValueError, match="seconds"):
        call(value)


@pytest.mark.parametrize("value", NOT_NUMBERS)
@pytest.mark.parametrize("call", [punctual.sleep, punctual.sleep_until, punctual.Sleeper("spin").sleep, punctual.Ticker])
def test_wrong_types_are_type_errors(call, value):
    with pytest.raises(TypeError, match="must be"):
        call(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e300, -1e300, 2**64])
def test_bad_deadlines_are_value_errors(value):
    with pytest.raises(ValueError, match="deadline"):
        punctual.sleep_until(value)


@pytest.mark.parametrize("value", [1.0, "5", None, True])
def test_ns_deadlines_must_be_ints(value):
    with pytest.raises(TypeError, match="deadline_ns must be an int"):
        punctual.sleep_until_ns(value)


def test_ns_deadline_out_of_range():
    with pytest.raises(ValueError, match="too large"):
        punctual.sleep_until_ns(2**63)


def test_messages_say_what_was_wrong():
    with pytest.raises(ValueError, match=r"must not be negative; got -1"):
        punctual.sleep(-1)
    with pytest.raises(ValueError, match=r"must be finite; got nan"):
        punctual.sleep(math.nan)
    with pytest.raises(ValueError, match=r"too large: at most 9223372036 seconds"):
        punctual.sleep(1e300)
    with pytest.raises(TypeError, match=r"not str"):
        punctual.sleep("1")


def test_strategy_and_policy_names():
    with pytest.raises(ValueError, match="unknown strategy"):
        punctual.Sleeper("fast")
    with pytest.raises(ValueError, match="missed-tick policy"):
        punctual.Ticker(0.01, policy="catch-up")
    with pytest.raises(ValueError, match="unknown strategy"):
        punctual.Ticker(0.01, strategy="fast")


@pytest.mark.parametrize("period", [0, 0.0, -1, math.nan, math.inf, 1e300])
def test_bad_periods(period):
    with pytest.raises(ValueError, match="period"):
        punctual.Ticker(period)
    with pytest.raises(ValueError, match="period"):
        pa.interval(period)


def test_poll_until_arguments():
    with pytest.raises(TypeError, match="condition must be callable"):
        punctual.poll_until(5)
    with pytest.raises(TypeError, match="before_sleep must be callable"):
        punctual.poll_until(lambda: True, before_sleep=3)
    with pytest.raises(ValueError, match="timeout"):
        punctual.poll_until(lambda: True, timeout=-1)
    with pytest.raises(ValueError, match="step"):
        punctual.poll_until(lambda: True, step=math.nan)
    with pytest.raises(TypeError, match="timeout"):
        punctual.poll_until(lambda: True, timeout="soon")


def test_asyncio_bad_input():
    async def main():
        with pytest.raises(ValueError, match="seconds"):
            await pa.sleep(-1)
        with pytest.raises(ValueError, match="deadline"):
            await pa.sleep_until(math.nan)
        with pytest.raises(TypeError, match="deadline_ns"):
            await pa.sleep_until_ns(1.5)
        assert pa.pending() == 0

    asyncio.run(main())


def test_zero_and_past_are_fine():
    assert punctual.sleep(0).lateness_ns >= 0
    assert punctual.sleep(-0.0).lateness_ns >= 0
    assert punctual.sleep_until(-1e9).lateness_ns > 0
    assert punctual.sleep_until_ns(-(2**63) + 1).lateness_ns > 0
