defmodule Punctual.Probe do
  @moduledoc false
  # `Punctual.probe/1`: what the BEAM's own sleep costs, the one an Elixir program would
  # replace. It times `Process.sleep/1` (or the sleep given) back to back with
  # `System.monotonic_time(:nanosecond)`, the requests the Lua module's probe times, and
  # reads the verdict with `detect/1`: `crates/punctual/src/quantum.rs`'s `detect`, the
  # same arithmetic on the same thresholds, here since the costs are the BEAM's to measure.

  alias Punctual.Options

  # The seed's table, 15 and 16 straddling a Windows tick.
  @requests_ms [1, 2, 5, 10, 15, 16, 20, 30]

  @options Options.spec(%{samples: {5, :samples}, sleep: {nil, :sleep}})

  def run(opts) do
    with {:ok, o} <- Options.check(opts, @options) do
      sleep = o.sleep || (&Process.sleep/1)
      {costs, floor_ns} = time_sleeps(sleep, o.samples)
      quantum_ns = detect(costs)

      {:ok,
       %{
         sleep: if(o.sleep, do: :given, else: :process_sleep),
         quantized: quantum_ns != nil,
         quantum_ns: quantum_ns,
         floor_ns: floor_ns,
         overshoot_ns: if(quantum_ns == nil, do: overshoot(costs)),
         costs:
           for(
             {request_ns, cost_ns} <- costs,
             do: %{request_ms: div(request_ns, 1_000_000), cost_ns: cost_ns}
           )
       }}
    end
  end

  # The mean back-to-back cost of each request, and the least any one sleep cost. One
  # sleep unmeasured first, so that every measured one starts where the last woke (on a
  # tick edge, where sleeps are quantised), as back-to-back sleeps do.
  defp time_sleeps(sleep, samples) do
    Enum.map_reduce(@requests_ms, nil, fn request_ms, floor ->
      sleep.(request_ms)

      costs =
        for _ <- 1..samples do
          started = System.monotonic_time(:nanosecond)
          sleep.(request_ms)
          System.monotonic_time(:nanosecond) - started
        end

      {{request_ms * 1_000_000, div(Enum.sum(costs), samples)},
       Enum.min([floor | costs], fn -> nil end)}
    end)
  end

  # The median of what each request cost past what it asked.
  defp overshoot(costs) do
    over = costs |> Enum.map(fn {request, cost} -> max(cost - request, 0) end) |> Enum.sort()
    Enum.at(over, div(length(over), 2))
  end

  @doc """
  The sleep quantum the costs show, in ns, or nil: `sleep(1 ms)` costing at least twice
  what was asked, and four in five requests of 1 ms or more costing a whole number of
  that quantum (within 15% of it), never less than asked. The quantum is the median of
  the costs each divided by its number of quanta. `costs` are `{request_ns, cost_ns}`;
  without a 1 ms request there is no verdict.
  """
  def detect(costs) do
    case List.keyfind(costs, 1_000_000, 0) do
      {_, first} when first >= 2_000_000 -> quantum(costs, first)
      _ -> nil
    end
  end

  defp quantum(costs, first) do
    per_quantum =
      for {request, cost} <- costs,
          k = max(round(cost / first), 1),
          abs(cost - k * first) <= 0.15 * first,
          k * first >= request * 0.98,
          do: cost / k

    if length(per_quantum) * 5 < length(costs) * 4 do
      nil
    else
      per_quantum |> Enum.sort() |> Enum.at(div(length(per_quantum), 2)) |> round()
    end
  end
end
