"""punctual.rt: the real-time controls, for real.

As root (CI runs as root) each control is granted and checked against the kernel's own
account (/proc), and the refused path is taken by a child dropped to nobody. Without root
those tests skip, loudly; with PUNCTUAL_REQUIRE_PRIVILEGED=1 (scripts/test sets it) they
fail instead, so a run that lost its privileges cannot pass for one that had them.
What no user can give a test (no Linux, no /dev/cpu_dma_latency, no setpriv) only skips.
"""

import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

import pytest

import punctual
from punctual import rt

LINUX = sys.platform.startswith("linux")
DMA = "/dev/cpu_dma_latency"


def skip_unprivileged(reason):
    """A privilege this run could have been given (root): fails under
    PUNCTUAL_REQUIRE_PRIVILEGED=1, else skips."""
    if os.environ.get("PUNCTUAL_REQUIRE_PRIVILEGED") == "1":
        pytest.fail(f"needs privileges it lacks: {reason}; PUNCTUAL_REQUIRE_PRIVILEGED=1 makes that a failure")
    pytest.skip(reason)


def need_root():
    if not LINUX:
        pytest.skip("the granted and refused paths are checked on Linux")
    if os.geteuid() != 0:
        skip_unprivileged("run as root")


def in_a_thread(body):
    """Runs `body` on a thread of its own (scheduling is per thread), returning its result
    or raising what it raised."""
    result = {}

    def run():
        try:
            result["value"] = body()
        except BaseException as error:  # noqa: BLE001 - carried to the test's thread
            result["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def kernel_scheduling():
    """(rt_priority, policy) of the calling thread: /proc/thread-self/stat fields 40, 41."""
    with open("/proc/thread-self/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[40 - 3]), int(fields[41 - 3])


def locked_kib():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmLck:"))
    return int(line.split()[1])


def dma_descriptors():
    fds = "/proc/self/fd"
    found = []
    for fd in os.listdir(fds):
        try:
            if os.readlink(os.path.join(fds, fd)) == DMA:
                found.append(fd)
        except OSError:
            pass  # closed between listdir and readlink
    return found


def test_the_exceptions_are_os_errors():
    assert issubclass(rt.RealtimeError, OSError)
    assert issubclass(rt.RealtimePermissionError, PermissionError)
    assert issubclass(rt.RealtimePermissionError, rt.RealtimeError)
    assert issubclass(rt.RealtimeUnsupportedError, rt.RealtimeError)
    assert punctual.rt is rt


def test_bad_values_change_nothing():
    low, high = rt.priority_range()
    assert 1 <= low <= high
    before = rt.current_scheduling()
    for priority in [low - 1, high + 1, -(2**31)]:
        with pytest.raises(ValueError, match="out of range"):
            rt.set_realtime_priority(priority)
    assert repr(rt.current_scheduling()) == repr(before)
    with pytest.raises(TypeError):
        rt.set_realtime_priority("10")  # type: ignore[arg-type]
    for latency in [-1, math.nan, math.inf]:
        with pytest.raises(ValueError, match="latency"):
            rt.dma_latency(latency)
    with pytest.raises(TypeError, match="latency must be"):
        rt.dma_latency(None)  # type: ignore[arg-type]


def test_the_current_scheduling_is_described():
    now = rt.current_scheduling()
    assert isinstance(now.policy, str) and now.policy
    assert isinstance(now.priority, int) and isinstance(now.realtime, bool)
    assert repr(now).startswith("Scheduling(policy=")


@pytest.mark.skipif(not LINUX, reason="timer slack is Linux's")
def test_the_timer_slack_set_is_the_slack_read_back():
    def body():
        rt.set_timer_slack(5e-6)
        realtime = rt.current_scheduling().realtime
        return realtime, rt.timer_slack()

    realtime, slack = in_a_thread(body)
    # A thread under a real-time policy keeps a slack of zero (prctl(2)).
    assert slack == (0.0 if realtime else 5e-6)


def test_bad_slacks_and_cpu_sets_are_value_errors():
    for slack in [-1e-6, math.nan, math.inf]:
        with pytest.raises(ValueError, match="slack"):
            rt.set_timer_slack(slack)
    with pytest.raises(TypeError):
        rt.set_timer_slack("5us")  # type: ignore[arg-type]
    if not LINUX:
        return
    for slack in [0, 0.0]:
        with pytest.raises(ValueError, match="at least 1 ns"):
            rt.set_timer_slack(slack)
    before = rt.available_cpus()
    for cpus in [[], [-1], [10**6], range(0)]:
        with pytest.raises(ValueError):
            rt.set_affinity(cpus)
    with pytest.raises(TypeError):
        rt.set_affinity(5)  # type: ignore[arg-type]
    assert rt.available_cpus() == before


@pytest.mark.skipif(not LINUX, reason="affinity is read back on Linux")
def test_affinity_to_one_cpu_and_back_to_all():
    def body():
        every = rt.available_cpus()
        assert every == sorted(every) and every
        rt.set_affinity([every[-1]])
        pinned = (rt.available_cpus(), os.sched_getaffinity(0))
        rt.set_affinity(iter(every))
        return every, pinned, rt.available_cpus()

    every, (pinned, kernel), after = in_a_thread(body)
    assert pinned == [every[-1]] and kernel == {every[-1]}
    assert after == every


@pytest.mark.skipif(LINUX, reason="Linux has every control")
def test_what_this_platform_lacks_says_so():
    with pytest.raises(rt.RealtimeUnsupportedError):
        rt.lock_memory()


def test_fifo_priority_takes_effect_per_the_kernel():
    need_root()

    def body():
        granted = rt.set_realtime_priority(3)
        in_force = kernel_scheduling(), rt.current_scheduling()
        normal = rt.set_normal_scheduling()
        return granted, in_force, normal, kernel_scheduling()

    granted, (kernel, current), normal, after = in_a_thread(body)
    assert (granted.policy, granted.priority, granted.realtime) == ("SCHED_FIFO", 3, True)
    assert kernel == (3, 1), "rt_priority 3 under SCHED_FIFO (policy 1), as /proc says"
    assert (current.policy, current.priority) == ("SCHED_FIFO", 3)
    assert (normal.policy, normal.realtime) == ("SCHED_OTHER", False)
    assert after == (0, 0)


def test_memory_is_locked_per_the_kernel():
    need_root()
    rt.lock_memory()
    try:
        assert locked_kib() > 0
    finally:
        rt.unlock_memory()
    assert locked_kib() == 0


def test_the_dma_latency_request_holds_while_its_block_runs():
    need_root()
    if not os.path.exists(DMA):
        pytest.skip(f"this kernel has no {DMA}")
    assert dma_descriptors() == []
    with rt.dma_latency(0) as request:
        assert request.held and request.latency == 0.0
        assert len(dma_descriptors()) == 1
        with open(DMA, "rb") as device:
            (in_force_us,) = struct.unpack("i", device.read(4))
        assert in_force_us == 0, "the kernel's latency target is the request's"
    assert not request.held and dma_descriptors() == []
    request.release()  # again: nothing
    kept = rt.dma_latency(0.00001)
    assert kept.latency == 0.00001 and "held=True" in repr(kept)
    kept.release()
    assert dma_descriptors() == []


CHILD = """
import json, sys
from punctual import rt

out = {}
for name, call in [
    ("priority", lambda: rt.set_realtime_priority(1)),
    ("memory", rt.lock_memory),
    ("dma", lambda: rt.dma_latency(0)),
]:
    try:
        call()
        out[name] = None
    except Exception as error:
        out[name] = {"mro": [c.__name__ for c in type(error).__mro__], "message": str(error)}
print(json.dumps(out))
"""


def interpreter_for_nobody(drop):
    """A Python that nobody can run (pyenv's under /root is out of its reach), at least the
    wheel's 3.9."""
    for candidate in [os.path.realpath(sys.executable), shutil.which("python3", path="/usr/bin:/bin")]:
        if candidate is None:
            continue
        ran = subprocess.run(
            drop + [candidate, "-c", "import sys; assert sys.version_info >= (3, 9)"],
            capture_output=True,
        )
        if ran.returncode == 0:
            return candidate
    return None


def test_refusals_raise_permission_errors_naming_their_fixes():
    need_root()
    if shutil.which("setpriv") is None or shutil.which("prlimit") is None:
        pytest.skip("setpriv and prlimit (util-linux) are not installed")
    drop = [
        "prlimit", "--rtprio=0:0", "--memlock=65536:65536",
        "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all",
    ]  # fmt: skip
    python = interpreter_for_nobody(drop)
    if python is None:
        pytest.skip("no Python that nobody can run")
    # The installed package, copied where nobody can read it.
    with tempfile.TemporaryDirectory(prefix="punctual-rt-") as work:
        os.chmod(work, 0o755)
        shutil.copytree(os.path.dirname(punctual.__file__), os.path.join(work, "punctual"))
        for root, dirs, files in os.walk(work):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)
        env = dict(os.environ, PYTHONPATH=work)
        ran = subprocess.run(drop + [python, "-s", "-c", CHILD], capture_output=True, text=True, env=env, cwd=work)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    fixes = {"priority": "CAP_SYS_NICE", "memory": "CAP_IPC_LOCK", "dma": DMA}
    for name, fix in fixes.items():
        if name == "dma" and not os.path.exists(DMA):
            assert found[name]["mro"][0] == "RealtimeUnsupportedError", found[name]
            continue
        refused = found[name]
        assert refused is not None, f"{name} was granted to nobody"
        assert refused["mro"][:2] == ["RealtimePermissionError", "RealtimeError"], refused
        assert "PermissionError" in refused["mro"] and "OSError" in refused["mro"], refused
        assert fix in refused["message"], refused
