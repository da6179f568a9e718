defmodule Punctual.ProbeTest do
  # probe/2 and cheat_sheet/3: the verdict is the program's (crates/punctual/src/quantum.rs),
  # so the arithmetic is checked on fixed costs sent to the program as VERDICT requests;
  # then what a probe reports of the OS's sleep, the BEAM's, a sleep given, and a sleep on
  # a Windows-like tick. Never how long a sleep took, beyond never early.
  # Not async: the tick's verdict needs each emulated sleep to end within 15% of a tick
  # of its edge, which the suite's other tests, sharing two cores, can spoil.
  use ExUnit.Case, async: false

  alias Punctual.Wire

  @ms 1_000_000
  @requests [1, 2, 5, 10, 15, 16, 20, 30]

  setup do
    {:ok, sleeper} = Punctual.open(realtime: false)
    on_exit(fn -> Punctual.close(sleeper) end)
    %{sleeper: sleeper}
  end

  # The program's answer to one request, on a port of the test's own.
  defp ask(request) do
    {:ok, path} = Punctual.Binary.path([])

    port =
      Port.open({:spawn_executable, path}, [
        :binary,
        {:packet, 2},
        args: ["--no-realtime", "--protocol", "2"]
      ])

    Port.command(port, request)

    receive do
      {^port, {:data, payload}} ->
        Port.close(port)
        Wire.answers(payload)
    after
      10_000 -> flunk("no answer")
    end
  end

  describe "the verdict on fixed costs" do
    @tick 15_625_000

    test "a 15.625 ms tick given as costs gives that quantum" do
      costs = for ms <- @requests, do: {ms, @tick * div(ms * @ms + @tick - 1, @tick)}

      assert [{:probed, 1, verdict}] = ask(Wire.verdict(1, @tick - 100, costs))
      assert verdict.quantum_ns == @tick
      assert verdict.overshoot_ns == nil
      assert verdict.floor_ns == @tick - 100
      assert verdict.primitive == nil
      assert verdict.costs == for({ms, ns} <- costs, do: %{request_ms: ms, mean_ns: ns})
    end

    test "a Windows Sleep(n) table on a 15.625 ms tick is quantised at one tick" do
      costs = [
        {1, 15_470_000},
        {2, 15_460_000},
        {5, 15_470_000},
        {10, 15_470_000},
        {15, 19_690_000},
        {16, 30_160_000},
        {20, 30_940_000},
        {30, 31_560_000}
      ]

      assert [{:probed, 2, verdict}] = ask(Wire.verdict(2, 15_460_000, costs))
      assert verdict.quantum_ns in 15_400_000..15_700_000
    end

    test "a high-resolution sleep's costs give an overshoot" do
      costs = [{1, 1_060_000}, {2, 2_062_000}, {10, 10_070_000}]
      assert [{:probed, 3, verdict}] = ask(Wire.verdict(3, 1_050_000, costs))
      assert verdict.quantum_ns == nil
      assert verdict.overshoot_ns == 62_000
    end

    test "without a 1 ms request, or a quantum cheaper than the request, there is none" do
      assert [{:probed, 4, %{quantum_ns: nil}}] = ask(Wire.verdict(4, 0, [{2, 15_600_000}]))

      assert [{:probed, 5, %{quantum_ns: nil}}] =
               ask(Wire.verdict(5, 0, [{1, 15_600_000}, {30, 15_600_000}]))

      assert [{:probed, 6, %{quantum_ns: nil, overshoot_ns: nil}}] = ask(Wire.verdict(6, 0, []))
    end

    test "a verdict cut short gets an error answer, never a crash" do
      <<cut::binary-size(30), _::binary>> = Wire.verdict(7, 0, [{1, 1}, {2, 2}])
      assert ask(cut) == [{:error, :truncated, 7}]
    end
  end

  defp check_shape(verdict) do
    assert verdict.quantum_ns != nil != (verdict.overshoot_ns != nil)
    assert Enum.map(verdict.costs, & &1.request_ms) == @requests
  end

  test "times the OS's sleep in the program by default, never shorter than asked", %{
    sleeper: sleeper
  } do
    assert {:ok, verdict} = Punctual.probe(sleeper, samples: 1)
    assert verdict.sleep == :os
    assert is_binary(verdict.primitive) and verdict.primitive != ""
    check_shape(verdict)
    assert verdict.floor_ns >= @ms

    for %{request_ms: ms, mean_ns: cost} <- verdict.costs, do: assert(cost >= ms * @ms)
  end

  test "wakes are answered while the program probes", %{sleeper: sleeper} do
    probing = Task.async(fn -> Punctual.probe(sleeper, samples: 1) end)
    # The probe's ~200 ms of sleeps, against a 1 ms sleep asked meanwhile.
    assert {:ok, _lateness} = Punctual.sleep(sleeper, @ms)
    assert Task.yield(probing, 0) == nil
    assert {:ok, %{sleep: :os}} = Task.await(probing)
  end

  test "times Process.sleep/1 with sleep: :process_sleep", %{sleeper: sleeper} do
    assert {:ok, verdict} = Punctual.probe(sleeper, sleep: :process_sleep, samples: 1)
    assert verdict.sleep == :process_sleep
    assert verdict.primitive == nil
    check_shape(verdict)
    assert verdict.floor_ns >= @ms

    for %{request_ms: ms, mean_ns: cost} <- verdict.costs, do: assert(cost >= ms * @ms)
  end

  test "times the sleep it is given: each request once untimed, then `samples` times", %{
    sleeper: sleeper
  } do
    Process.put(:calls, [])

    given = fn ms ->
      Process.put(:calls, [ms | Process.get(:calls)])
      {:ok, _slept} = Punctual.sleep(sleeper, ms * @ms + div(@ms, 2))
    end

    assert {:ok, verdict} = Punctual.probe(sleeper, sleep: given, samples: 2)
    assert verdict.sleep == :given
    check_shape(verdict)
    assert Enum.reverse(Process.get(:calls)) == Enum.flat_map(@requests, &[&1, &1, &1])

    for %{request_ms: ms, mean_ns: cost} <- verdict.costs,
        do: assert(cost >= ms * @ms + div(@ms, 2))

    assert verdict.floor_ns >= @ms + div(@ms, 2)
  end

  test "finds the 15.625 ms tick of a Win32-like sleep, on the sleep's own clock", %{
    sleeper: sleeper
  } do
    # A Win32 Sleep(ms) on the default timer, on a clock of its own: it ends at the first
    # tick edge at least `ms` after it starts, so back-to-back sleeps cost whole ticks. The
    # probe times it on that clock, so this machine's load cannot blur the tick.
    {:ok, time} = Agent.start_link(fn -> 3 * @tick + 1_234_567 end)
    clock = fn -> Agent.get(time, & &1) end

    tick_sleep = fn ms ->
      Agent.update(time, fn now ->
        wanted = now + ms * @ms
        div(wanted + @tick - 1, @tick) * @tick
      end)
    end

    {:ok, verdict} = Punctual.probe(sleeper, sleep: tick_sleep, clock: clock, samples: 3)
    assert tick_found?(verdict), inspect(verdict)
    check_shape(verdict)
    assert verdict.overshoot_ns == nil
    assert verdict.quantum_ns == @tick
    assert verdict.floor_ns == @tick
  end

  test "a clock with the program's own sleep, or not a function, is an error before anything is timed",
       %{sleeper: sleeper} do
    clock = fn -> 0 end
    assert Punctual.probe(sleeper, clock: clock) == {:error, {:invalid, :clock, clock}}

    assert Punctual.probe(sleeper, sleep: :process_sleep, clock: 5) ==
             {:error, {:invalid, :clock, 5}}
  end

  # The tick found, and 1 to 10 ms costing one tick, 16 to 30 two: a floor of one tick and
  # a step at 16, past a 15.625 ms tick.
  defp tick_found?(verdict) do
    cost = Map.new(verdict.costs, &{&1.request_ms, &1.mean_ns})

    verdict.quantum_ns != nil and abs(verdict.quantum_ns - @tick) < @ms and
      cost[16] > 1.5 * cost[10]
  end

  test "bad options are errors, before anything is timed", %{sleeper: sleeper} do
    for {opts, name, value} <- [
          {[samples: 0], :samples, 0},
          {[samples: 1_001], :samples, 1_001},
          {[samples: 1.5], :samples, 1.5},
          {[sleep: 5], :sleep, 5},
          {[sleep: :timer], :sleep, :timer},
          {[smples: 2], :smples, 2}
        ] do
      assert Punctual.probe(sleeper, opts) == {:error, {:invalid, name, value}}
    end

    assert {:error, {:invalid, :sleep, _}} = Punctual.probe(sleeper, sleep: fn -> :ok end)
    assert Punctual.probe(sleeper, :quick) == {:error, {:invalid, :options, :quick}}

    assert Punctual.probe(sleeper, samples: 2 ** 63 - 1) ==
             {:error, {:invalid, :samples, 2 ** 63 - 1}}
  end

  test "a closed program is an error", %{sleeper: sleeper} do
    Punctual.close(sleeper)
    assert Punctual.probe(sleeper, samples: 1) == {:error, :closed}
    assert Punctual.cheat_sheet(sleeper, 15_625_000) == {:error, :closed}
  end

  test "protocol 1 has no probe" do
    {:ok, sleeper} = Punctual.open(realtime: false, protocol: 1)
    assert Punctual.probe(sleeper, samples: 1) == {:error, :unsupported}
    fails = fn _ms -> flunk("timed with protocol 1") end
    assert Punctual.probe(sleeper, sleep: fails) == {:error, :unsupported}
    assert Punctual.cheat_sheet(sleeper, 15_625_000) == {:error, :unsupported}
    Punctual.close(sleeper)
  end

  describe "cheat_sheet/3" do
    test "is the library's: mid-band requests, k quanta, their rate", %{sleeper: sleeper} do
      assert {:ok, sheet} = Punctual.cheat_sheet(sleeper, 15_625_000)
      assert Enum.map(sheet, & &1.request_ms) == [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]
      assert Enum.map(sheet, & &1.k) == Enum.to_list(1..10)
      assert Enum.at(sheet, 1) == %{k: 2, request_ms: 23, cost_ns: 31_250_000, rate_hz: 32.0}
      assert {:ok, [%{k: 1, rate_hz: 64.0}]} = Punctual.cheat_sheet(sleeper, 15_625_000, 1)
    end

    test "stops where its numbers would overflow", %{sleeper: sleeper} do
      # The second band's cost would pass the wire's u64 nanoseconds.
      assert {:ok, [%{k: 1, cost_ns: 0xFFFF_FFFF_FFFF_FFFF}]} =
               Punctual.cheat_sheet(sleeper, 2 ** 64 - 1, 10)
    end

    test "bad arguments are errors, before anything is sent", %{sleeper: sleeper} do
      for {q, bands, name, value} <- [
            {0, 10, :quantum_ns, 0},
            {-1, 10, :quantum_ns, -1},
            {1.5, 10, :quantum_ns, 1.5},
            {2 ** 64, 10, :quantum_ns, 2 ** 64},
            {15_625_000, 0, :bands, 0},
            {15_625_000, 1_001, :bands, 1_001},
            {15_625_000, :all, :bands, :all}
          ] do
        assert Punctual.cheat_sheet(sleeper, q, bands) == {:error, {:invalid, name, value}}
      end
    end
  end
end
