"""punctual.probe(): the library's sleep probe, on the OS's plain sleep and on one passed in."""

import os
import signal
import subprocess
import sys
import time

import pytest

import punctual

REQUESTS = [0.001, 0.002, 0.005, 0.010, 0.015, 0.016, 0.020, 0.030]
TICK = 0.015625


def test_the_plain_sleep_is_timed_at_every_request():
    probe = punctual.probe(1)
    assert probe.samples == 1
    assert [request for request, _ in probe.costs] == REQUESTS
    assert all(mean >= probe.floor > 0 for _, mean in probe.costs)
    # Only the name the library reports for the call it timed (punctual-sys's PLAIN_SLEEP):
    # that the call is that one is punctual-sys's own, and no Python test runs on Windows
    # (scripts/check-python builds the Windows wheel, with no Python there to run it).
    assert probe.primitive == ("Win32 Sleep()" if sys.platform == "win32" else "std::thread::sleep")
    # Quantised or not: exactly one of the two verdicts.
    assert (probe.quantum is None) != (probe.overshoot is None)
    assert len(probe.cheat_sheet()) == (0 if probe.quantum is None else 10)
    assert "Probe(quantum=" in repr(probe)


def test_a_sleep_passed_in_is_what_gets_timed():
    asked = []

    def sleep(seconds):
        asked.append(seconds)
        punctual.sleep(seconds)

    probe = punctual.probe(2, sleep=sleep)
    assert asked == [r for r in REQUESTS for _ in range(3)], "each request once unmeasured, then twice"
    assert probe.primitive is None
    # Never early, so never cheaper than asked. (Whether a quantum is found is arithmetic,
    # tested on a fake clock in the library, crates/punctual/src/quantum/probe.rs.)
    assert all(mean >= request for request, mean in probe.costs)
    assert probe.floor >= 0.001


def test_what_the_sleep_raises_ends_the_probe():
    calls = []

    def failing(seconds):
        calls.append(seconds)
        if len(calls) == 3:
            raise ZeroDivisionError("the host's sleep failed")

    with pytest.raises(ZeroDivisionError, match="host's sleep failed"):
        punctual.probe(5, sleep=failing)
    assert len(calls) == 3


def test_bad_arguments_are_refused_before_anything_sleeps():
    for samples in [0, -1, 2**32]:
        with pytest.raises(ValueError, match="samples must be from 1"):
            punctual.probe(samples, sleep=lambda s: pytest.fail("slept"))
    with pytest.raises(TypeError):
        punctual.probe("5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sleep must be callable"):
        punctual.probe(1, sleep=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="longer than zero"):
        punctual.cheat_sheet(0)
    with pytest.raises(ValueError, match="must not be negative"):
        punctual.cheat_sheet(-0.01)
    with pytest.raises(ValueError, match="bands must be from 1"):
        punctual.cheat_sheet(TICK, 0)


def test_the_cheat_sheet_is_the_seeds():
    sheet = punctual.cheat_sheet(TICK)
    assert [band.request_ms for band in sheet] == [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]
    assert [band.k for band in sheet] == list(range(1, 11))
    assert sheet[0].request == 0.008 and sheet[1].cost == 0.03125 and sheet[7].rate_hz == 8.0
    assert punctual.cheat_sheet(TICK, 16)[15].request_ms == 242
    assert repr(sheet[0]) == "Band(k=1, request_ms=8, cost=0.015625)"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is sent with os.kill, POSIX only")
def test_ctrl_c_interrupts_a_long_probe():
    # 50 samples take at least 51 * 99 ms = 5.05 s; Ctrl-C is answered between sleeps.
    code = (
        "import punctual, signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "print('ready', flush=True)\n"
        "punctual.probe(50)\n"
        "print('finished', flush=True)\n"
    )
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert "KeyboardInterrupt" in err and "finished" not in out, (out, err)
    assert time.perf_counter() - started < 5.05, "the probe ran to its end"
