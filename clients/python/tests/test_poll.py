"""Deadline and poll_until: timeouts that carry their figures, errors that pass through."""

import math
import time

import pytest

import punctual


def test_condition_value_is_returned():
    calls = []

    def condition():
        calls.append(1)
        return "ready" if len(calls) == 3 else None

    assert punctual.poll_until(condition, timeout=5, step=0.001) == "ready"
    assert len(calls) == 3


def test_timeout_raises_a_timeout_error_with_elapsed_and_polls():
    calls = []
    hooks = []
    start = time.perf_counter()
    with pytest.raises(punctual.PollTimeout) as raised:
        punctual.poll_until(lambda: calls.append(1), timeout=0.02, step=0.005, before_sleep=lambda: hooks.append(1))
    took = time.perf_counter() - start
    error = raised.value
    assert isinstance(error, TimeoutError)
    assert error.polls == len(calls) >= 2
    assert len(hooks) == error.polls - 1  # a hook before each sleep, none after the last check
    # The deadline was set just before the first poll, so elapsed falls a hair short of 0.02.
    assert 0.015 <= error.elapsed <= took
    assert "timed out" in str(error)


def test_the_conditions_own_exception_propagates():
    class Wedged(Exception):
        pass

    wedged = Wedged("mailbox wedged")

    def condition():
        raise wedged

    with pytest.raises(Wedged) as raised:
        punctual.poll_until(condition, timeout=1)
    assert raised.value is wedged


def test_before_sleep_exception_propagates():
    def hook():
        raise KeyError("pump")

    with pytest.raises(KeyError):
        punctual.poll_until(lambda: False, timeout=1, before_sleep=hook)


def test_deadline_object_as_timeout():
    deadline = punctual.Deadline(0.01)
    with pytest.raises(punctual.PollTimeout):
        punctual.poll_until(lambda: 0, timeout=deadline)
    assert deadline.has_passed
    assert deadline.remaining == 0.0


def test_deadline_forms():
    never = punctual.Deadline.never()
    assert never.is_never and never.remaining == math.inf and never.when is None
    assert not never.has_passed
    soon = punctual.Deadline.after(10)
    assert 9 < soon.remaining <= 10
    at = punctual.Deadline.at(time.perf_counter() - 1)
    assert at.has_passed
    assert "Deadline" in repr(at) and repr(never) == "Deadline.never()"
