defmodule Punctual.Probe do
  @moduledoc false
  # `Punctual.probe/2`: what a plain sleep costs, with the library's verdict
  # (crates/punctual/src/quantum.rs), which is always asked of the port; no arithmetic of
  # the verdict lives here. `sleep: :os` has the port time its own plain OS sleep
  # (protocol 2's PROBE, `quantum::probe`). The BEAM's `Process.sleep/1`, or a sleep
  # given, can only be timed in the BEAM: timed here on `System.monotonic_time(:nanosecond)`,
  # its costs go to the port for `Probe::from_costs`'s verdict (VERDICT).

  alias Punctual.Options

  # quantum::REQUESTS_MS, the requests the port's own probe times: 15 and 16 straddle a
  # Windows tick.
  @requests_ms [1, 2, 5, 10, 15, 16, 20, 30]

  @options Options.spec(%{samples: {5, :samples}, sleep: {:os, :sleep}, clock: {nil, :clock}})

  def options(opts), do: Options.check(opts, @options)

  # The question for the port: the probe itself, or the verdict on costs timed here.
  def question(%{sleep: :os, samples: samples}), do: {:probe, samples}

  def question(%{sleep: sleep, samples: samples, clock: clock}) do
    sleep = if sleep == :process_sleep, do: &Process.sleep/1, else: sleep
    clock = clock || fn -> System.monotonic_time(:nanosecond) end
    {costs, floor_ns} = time_sleeps(sleep, clock, samples)
    {:verdict, floor_ns, costs}
  end

  # `:clock` times a sleep the BEAM runs; the program's own probe reads its own clock.
  def clock_fits(%{sleep: :os, clock: clock}) when clock != nil,
    do: Options.invalid(:clock, clock)

  def clock_fits(_o), do: :ok

  # What was timed, as the answer names it.
  def timed(%{sleep: sleep}) when is_atom(sleep), do: sleep
  def timed(_o), do: :given

  # The mean back-to-back cost of each request, and the least any one sleep cost. One
  # sleep untimed first, so that every timed one starts where the last woke (on a tick
  # edge, where sleeps are quantised), as back-to-back sleeps do.
  defp time_sleeps(sleep, clock, samples) do
    Enum.map_reduce(@requests_ms, nil, fn request_ms, floor ->
      sleep.(request_ms)

      costs =
        for _ <- 1..samples do
          started = clock.()
          sleep.(request_ms)
          clock.() - started
        end

      {{request_ms, div(Enum.sum(costs), samples)}, Enum.min([floor | costs], fn -> nil end)}
    end)
  end
end
