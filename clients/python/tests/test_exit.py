"""The interpreter exits cleanly while daemon threads wait in punctual."""

import subprocess
import sys

import pytest

PROGRAM = """
import asyncio, threading, time
import punctual, punctual.asyncio

def blocking():
    while True:
        punctual.sleep(0.003)

def spinning():
    sleeper = punctual.Sleeper("spin")
    while True:
        sleeper.sleep(0.003)

def polling():
    punctual.poll_until(lambda: False, step=0.002)

def loop():
    async def main():
        while True:
            await punctual.asyncio.sleep(0.0003)
    asyncio.run(main())

for target in (blocking, spinning, polling, loop):
    threading.Thread(target=target, daemon=True).start()
time.sleep(0.2)
print("exiting", flush=True)
"""


@pytest.mark.parametrize("run", range(5))
def test_exit_with_daemon_threads_waiting(run):
    # CPython 3.11 ends such threads with pthread_exit once finalizing, which aborts a process
    # whose thread is inside Rust frames (exit status 134, "exception not rethrown").
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "exiting"
    assert done.returncode == 0, done.stderr
