"""``python -m punctual.bench`` runs each of its parts, on the caller's clock. The figures
of a run this short mean nothing, and nothing here reads them: only that every loop ran,
was never early and kept its reports in order."""

import subprocess
import sys

import pytest

from punctual import bench


def table_rows(output, header):
    """The rows of the table whose header line is ``header``, as lists of cells."""
    lines = output.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_quick_run_prints_every_part():
    done = subprocess.run(
        [sys.executable, "-m", "punctual.bench", "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("python -m punctual.bench --quick")
    blocking = table_rows(out, "| wait | method | p50 | p90 | p99 | early | CPU per wait |")
    assert {row[1] for row in blocking} == {"time.sleep", "sleep+spin 2ms", "punctual"}
    assert all(row[5] == "0" for row in blocking if row[1] in ("sleep+spin 2ms", "punctual"))
    asyncio_rows = table_rows(out, "| wait | method | p50 | p99 | early |")
    assert {row[1] for row in asyncio_rows} == {"asyncio.sleep", "punctual.asyncio"}
    control = table_rows(out, "| rate | loop | ticks | p50 | p90 | p99 | early | cores |")
    assert [(row[0], row[1]) for row in control] == [
        ("100 Hz", "hand-rolled sleep+spin 2ms"),
        ("100 Hz", "punctual.Ticker"),
        ("1 kHz", "hand-rolled sleep+spin 2ms"),
        ("1 kHz", "punctual.Ticker"),
    ]
    # 0.2 s per loop: 20 ticks at 100 Hz, 200 at 1 kHz, none of them early.
    assert [row[2] for row in control] == ["20", "20", "200", "200"]
    assert all(row[6] == "0" for row in control)
    assert "control 100 Hz: Ticker p50" in out and "control 1 kHz: Ticker p50" in out


def test_control_loops_are_never_early_on_the_callers_clock():
    results = bench.run_control([200, 1000], 0.05, warmup_ticks=3, rounds=2)
    for rate, ticks in ((200, 10), (1000, 50)):
        for name in bench.CONTROL:
            s = results[rate][name]
            assert len(s.lateness_ns) == ticks, (rate, name)
            assert s.early == 0 and min(s.lateness_ns) >= 0, (rate, name)
            assert s.wall_ns > 0 and s.process_cpu_ns > 0 and s.cores > 0
        ticker = results[rate]["punctual.Ticker"]
        # Per tick: the wait's own reading, then the Python spin's last before the return,
        # then the loop's read after it.
        assert len(ticker.reported_ns) == len(ticker.sleeper_ns) == ticks
        for own, reported, seen in zip(ticker.sleeper_ns, ticker.reported_ns, ticker.lateness_ns):
            assert 0 <= own <= reported <= seen
        assert not results[rate]["hand-rolled sleep+spin 2ms"].reported_ns


def test_report_leaves_out_the_parts_not_run():
    control = bench.run_control([500], 0.02, warmup_ticks=0, rounds=1)
    lines = bench.report({}, {}, control)
    assert lines[0].startswith("| rate | loop |")
    assert not any(line.startswith("| wait |") for line in lines)
    assert any(line.startswith("control 500 Hz: Ticker p50") for line in lines)


@pytest.mark.parametrize(
    "args",
    [["--rates", "0"], ["--rates", "fast"], ["--control-seconds", "0"], ["--parts", "blocking,bogus"], ["--samples", "0"], ["--control-rounds", "0"]],
)
def test_bad_options_exit_2(args, capsys):
    with pytest.raises(SystemExit) as exited:
        bench.main(args)
    assert exited.value.code == 2
    assert "error" in capsys.readouterr().err
