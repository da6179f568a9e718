"""``python -m punctual``: what punctual finds on this machine, and a short benchmark."""

import time

import punctual
from punctual import bench


def main() -> None:
    info = punctual.timer_info()
    print(f"native timer: {info['mechanism']}" + (" (high resolution)" if info["high_resolution"] else " (low resolution)"))
    if info["resolution"] is not None:
        print(f"  clock resolution: {info['resolution'] * 1e9:.0f} ns")
    if info["timer_slack"] is not None:
        print(f"  timer slack: {info['timer_slack'] * 1e9:.0f} ns")
    if info["degraded"]:
        print(f"  degraded: {info['degraded']}")
    clock = punctual.clock_info()
    print(f"deadlines are readings of {clock['clock']}(): {time.get_clock_info('perf_counter').implementation}")
    print(f"  time.monotonic(): {time.get_clock_info('monotonic').implementation}")
    print(f"  conversion to the library's clock moves a deadline later by at most {clock['frame_spread_ns']} ns")
    print(f"  Ctrl-C is checked every {clock['signal_check_interval'] * 1e3:.0f} ms during a long wait")
    print()
    samples = 200
    blocking = bench.run_blocking([1_000_000, 10_000_000], samples)
    asyncio_results = bench.run_asyncio([100_000, 1_000_000], samples)
    control = bench.run_control([100, 1000], 1.0, warmup_ticks=50)
    print(f"a short benchmark ({samples} waits each, 1 s per control loop; `python -m punctual.bench` runs a longer one):")
    print("\n".join(bench.report(blocking, asyncio_results, control)))


if __name__ == "__main__":
    main()
