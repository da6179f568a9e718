"""Ctrl-C during a long wait raises KeyboardInterrupt promptly."""

import os
import signal
import subprocess
import sys
import time

import pytest

WAITS = {
    "sleep": "punctual.sleep(10)",
    "sleep_until": "punctual.sleep_until(time.perf_counter() + 10)",
    "spin sleeper": "punctual.Sleeper('spin').sleep(10)",
    "ticker": "next(punctual.Ticker(10))",
    # The hybrid and spinning waits take the GIL back before their deadline (retake.rs):
    # their slices still answer Ctrl-C.
    "hybrid sleeper": "punctual.Sleeper('hybrid').sleep_until_ns(time.perf_counter_ns() + 10**10)",
    "spin ticker": "next(punctual.Ticker(10, strategy='spin'))",
}

# The wait checks for signals every 20 ms; a bound of 2 s cannot fail from noise on a busy
# machine, and a 10 s wait that ignored SIGINT until its end would fail it.
BOUND_S = 2.0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is sent with os.kill, POSIX only")
@pytest.mark.parametrize("name", list(WAITS))
def test_ctrl_c_interrupts_a_10_s_wait(name, capsys):
    # A program started from a terminal has Python's KeyboardInterrupt handler; one started
    # from a background job (`cmd &`, nohup) inherits SIGINT ignored and gets none, so the
    # child installs it as a terminal would have it.
    code = (
        "import punctual, signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"print('ready', flush=True)\n{WAITS[name]}\nprint('finished', flush=True)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # into the wait
        sent = time.perf_counter()
        os.kill(child.pid, signal.SIGINT)
        child.wait(timeout=15)
        took = time.perf_counter() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    stdout, stderr = child.communicate()
    assert "KeyboardInterrupt" in stderr
    assert "finished" not in stdout
    assert took < BOUND_S, f"{name}: {took:.3f} s from SIGINT to exit"
    with capsys.disabled():
        print(f"\n  Ctrl-C during a 10 s {name}: process gone {took * 1e3:.1f} ms after SIGINT", end="")
