defmodule Punctual.ProbeTest do
  # probe/1: the verdict's arithmetic on known tables (crates/punctual/src/quantum.rs's
  # cases), then what a probe reports of the BEAM's sleep, of a sleep given, and of a
  # sleep on a Windows-like tick. Never how long a sleep took, beyond never early.
  # Not async: the tick's verdict needs each emulated sleep to end within 15% of a tick
  # of its edge, which the suite's other tests, sharing two cores, can spoil.
  use ExUnit.Case, async: false

  alias Punctual.Probe

  @ms 1_000_000
  @requests [1, 2, 5, 10, 15, 16, 20, 30]

  describe "detect/1" do
    test "the seed's table is quantised at one tick" do
      costs = [
        {1 * @ms, 15_470_000},
        {2 * @ms, 15_460_000},
        {5 * @ms, 15_470_000},
        {10 * @ms, 15_470_000},
        {15 * @ms, 19_690_000},
        {16 * @ms, 30_160_000},
        {20 * @ms, 30_940_000},
        {30 * @ms, 31_560_000}
      ]

      assert Probe.detect(costs) in 15_400_000..15_700_000
    end

    test "high-resolution sleeps are not quantised" do
      assert Probe.detect([{@ms, 1_060_000}, {2 * @ms, 2_062_000}, {10 * @ms, 10_070_000}]) ==
               nil
    end

    test "without a 1 ms request there is no verdict" do
      assert Probe.detect([]) == nil
      assert Probe.detect([{2 * @ms, 15_600_000}]) == nil
    end

    test "a quantum cheaper than the request is not one" do
      # 30 ms "costing" one 15.6 ms quantum would be an early wake, not a tick.
      assert Probe.detect([{@ms, 15_600_000}, {30 * @ms, 15_600_000}]) == nil
    end
  end

  defp check_shape(verdict) do
    assert is_boolean(verdict.quantized)
    assert verdict.quantum_ns != nil == verdict.quantized
    assert verdict.overshoot_ns != nil == not verdict.quantized
    assert Enum.map(verdict.costs, & &1.request_ms) == @requests
  end

  test "times Process.sleep/1, never shorter than asked" do
    assert {:ok, verdict} = Punctual.probe(samples: 1)
    assert verdict.sleep == :process_sleep
    check_shape(verdict)
    assert verdict.floor_ns >= @ms

    for %{request_ms: ms, cost_ns: cost} <- verdict.costs, do: assert(cost >= ms * @ms)
  end

  test "times the sleep it is given: each request once untimed, then `samples` times" do
    {:ok, sleeper} = Punctual.open(realtime: false)
    Process.put(:calls, [])

    given = fn ms ->
      Process.put(:calls, [ms | Process.get(:calls)])
      {:ok, _slept} = Punctual.sleep(sleeper, ms * @ms + div(@ms, 2))
    end

    assert {:ok, verdict} = Punctual.probe(sleep: given, samples: 2)
    assert verdict.sleep == :given
    check_shape(verdict)
    assert Enum.reverse(Process.get(:calls)) == Enum.flat_map(@requests, &[&1, &1, &1])

    for %{request_ms: ms, cost_ns: cost} <- verdict.costs,
        do: assert(cost >= ms * @ms + div(@ms, 2))

    assert verdict.floor_ns >= @ms + div(@ms, 2)
  end

  # Win32 Sleep on the default timer: a request ends at the first 15.625 ms tick edge at
  # or after it (edges on the BEAM's clock), as the Lua module's test emulates it. An
  # ideal one: a request made within 5 ms of an edge counts from that edge, as one made
  # by a thread the edge just woke does, so that this machine's lateness in waking from
  # the last one (a neighbour's build) does not push it past the next; the last 2 ms are
  # spun, so that the edges it ends on are sharp.
  @tick 15_625_000

  test "finds the 15.625 ms tick of a Win32-like sleep" do
    {:ok, sleeper} = Punctual.open(realtime: false)

    tick_sleep = fn ms ->
      now = System.monotonic_time(:nanosecond)
      last_edge = div(now, @tick) * @tick - if(rem(now, @tick) < 0, do: @tick, else: 0)
      start = if now - last_edge < 5 * @ms, do: last_edge, else: now
      wanted = start + ms * @ms
      edge = last_edge + div(wanted - last_edge + @tick - 1, @tick) * @tick
      {:ok, _late} = Punctual.sleep_until(sleeper, edge, spin: 2 * @ms)
    end

    # A stall of a few ms in one sample (a neighbour's build) moves a request's mean off
    # the tick: three tries, as the port's spin-tail suite reruns a seed over its bound.
    verdict =
      Enum.find_value(1..3, fn _ ->
        {:ok, verdict} = Punctual.probe(sleep: tick_sleep, samples: 2)
        if tick_found?(verdict), do: verdict
      end)

    assert verdict, "no 15.625 ms quantum with its step at 16 ms in three probes"
    check_shape(verdict)
    assert verdict.overshoot_ns == nil
    # At least a tick less the lateness of the wake before it.
    assert verdict.floor_ns > div(@tick, 2)
  end

  # The tick found, and 1 to 10 ms costing one tick, 16 to 30 two: the seed's floor and
  # its step at 16.
  defp tick_found?(verdict) do
    cost = Map.new(verdict.costs, &{&1.request_ms, &1.cost_ns})
    verdict.quantized and abs(verdict.quantum_ns - @tick) < @ms and cost[16] > 1.5 * cost[10]
  end

  test "bad options are errors, before anything is timed" do
    for {opts, name, value} <- [
          {[samples: 0], :samples, 0},
          {[samples: 1_001], :samples, 1_001},
          {[samples: 1.5], :samples, 1.5},
          {[sleep: 5], :sleep, 5},
          {[sleep: :timer], :sleep, :timer},
          {[smples: 2], :smples, 2}
        ] do
      assert Punctual.probe(opts) == {:error, {:invalid, name, value}}
    end

    assert {:error, {:invalid, :sleep, _}} = Punctual.probe(sleep: fn -> :ok end)
    assert Punctual.probe(:quick) == {:error, {:invalid, :options, :quick}}
    assert Punctual.probe(samples: 2 ** 63 - 1) == {:error, {:invalid, :samples, 2 ** 63 - 1}}
  end
end
