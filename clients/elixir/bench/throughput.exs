# How many wakes per second one protocol-2 port serves to many concurrent sleepers:
#
#     mix run bench/throughput.exs [--sleepers 1000] [--seconds 5] [--sleep-us 1000]
#                                  [--realtime]
#
# Every sleeper is a process that asks for a wake `sleep-us` ahead and waits for it, again
# and again, for `seconds`: once with `Punctual.sleep/3` (blocking) and once with
# `Punctual.wake_after/3` and a `receive` (as a GenServer would). The port runs without
# real time unless --realtime, so that it cannot take the CPU from the BEAM on a small
# machine. The lateness columns are the port's own (how late it fired), in microseconds.

defmodule Throughput do
  def run(argv) do
    {opts, []} =
      OptionParser.parse!(argv,
        strict: [sleepers: :integer, seconds: :integer, sleep_us: :integer, realtime: :boolean]
      )

    sleepers = Keyword.get(opts, :sleepers, 1000)
    seconds = Keyword.get(opts, :seconds, 5)
    sleep_ns = Keyword.get(opts, :sleep_us, 1000) * 1000
    {:ok, port} = Punctual.open(realtime: Keyword.get(opts, :realtime, false))

    IO.puts(
      "#{sleepers} sleepers, #{div(sleep_ns, 1000)} µs sleeps, #{seconds} s per row, " <>
        "#{System.schedulers_online()} schedulers\n"
    )

    IO.puts("| mode | wakes/s | port lateness p50 | p99 | max |")
    IO.puts("|---|---|---|---|---|")

    for {name, loop} <- [{"sleep/3", &blocking/3}, {"wake_after/3 + receive", &messages/3}] do
      {wakes, lates} = measure(port, sleepers, seconds, sleep_ns, loop)
      [p50, p99, max] = quantiles(lates)
      IO.puts("| #{name} | #{round(wakes / seconds)} | #{p50} | #{p99} | #{max} |")
    end
  end

  defp measure(port, sleepers, seconds, sleep_ns, loop) do
    stop_at = System.monotonic_time(:millisecond) + seconds * 1000

    1..sleepers
    |> Enum.map(fn _ -> Task.async(fn -> loop.(port, sleep_ns, {stop_at, 0, []}) end) end)
    |> Task.await_many(seconds * 1000 + 60_000)
    |> Enum.reduce({0, []}, fn {count, lates}, {total, all} -> {total + count, lates ++ all} end)
  end

  # Each sleeper keeps one lateness sample in 16, to keep the lists small.
  defp blocking(port, sleep_ns, {stop_at, count, lates} = acc) do
    if System.monotonic_time(:millisecond) >= stop_at do
      {count, lates}
    else
      {:ok, slept} = Punctual.sleep(port, sleep_ns)
      blocking(port, sleep_ns, sample(acc, slept - sleep_ns))
    end
  end

  defp messages(port, sleep_ns, {stop_at, count, lates} = acc) do
    if System.monotonic_time(:millisecond) >= stop_at do
      {count, lates}
    else
      {:ok, id} = Punctual.wake_after(port, sleep_ns)

      receive do
        message ->
          {:woke, ^id, lateness} = Punctual.message(port, message)
          messages(port, sleep_ns, sample(acc, lateness))
      end
    end
  end

  defp sample({stop_at, count, lates}, late) when rem(count, 16) == 0,
    do: {stop_at, count + 1, [late | lates]}

  defp sample({stop_at, count, lates}, _late), do: {stop_at, count + 1, lates}

  defp quantiles(lates) do
    sorted = lates |> Enum.sort() |> List.to_tuple()
    n = tuple_size(sorted)
    Enum.map([0.5, 0.99, 1.0], &div(elem(sorted, min(n - 1, trunc(&1 * n))), 1000))
  end
end

Throughput.run(System.argv())
