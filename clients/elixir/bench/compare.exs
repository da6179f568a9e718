# How late a process wakes on a fixed grid, by each way of waiting:
#
#     mix run bench/compare.exs [interval in microseconds ...] [--ticks N]
#
# With no interval it runs the 1 ms and the 500 us grids, 3000 ticks each. Every row waits
# for the same grid, one after another, in this one process: the Erlang timer
# (`:erlang.start_timer/4` with `abs: true`), then punctual's port without real time, with
# it, with a 250 us spin tail in the waiting process, and the same binary driven as
# nanosleep 0.3 drives its C program (protocol 1, a port owned by this process).
# Lateness is in microseconds, by the BEAM's monotonic clock. Run it on an idle machine,
# from a terminal of its own, for numbers that mean something.

defmodule Compare do
  @quantiles [0.5, 0.9, 0.99, 0.999]

  def run(argv) do
    {opts, intervals} = OptionParser.parse!(argv, strict: [ticks: :integer])
    ticks = Keyword.get(opts, :ticks, 3000)

    intervals =
      if intervals == [], do: [1000, 500], else: Enum.map(intervals, &String.to_integer/1)

    {:ok, ordinary} = Punctual.open(realtime: false)
    {:ok, realtime} = Punctual.open()
    {:ok, path} = Punctual.Binary.path([])

    nanosleep =
      Port.open({:spawn_executable, path}, [
        :binary,
        {:packet, 2},
        :exit_status,
        args: ["--above", System.pid()]
      ])

    IO.puts("#{ticks} ticks per row; lateness in microseconds (p50 / p90 / p99 / p99.9 / max)\n")

    for interval_us <- intervals do
      interval = interval_us * 1000

      rows = [
        {"Erlang timer", &erlang/1},
        {"punctual, not realtime", &Punctual.sleep_until(ordinary, &1)},
        {"punctual", &Punctual.sleep_until(realtime, &1)},
        {"punctual, spin 250 µs", &Punctual.sleep_until(realtime, &1, spin: 250_000)},
        {"punctual-port as nanosleep drives it", &nanosleep(nanosleep, &1)}
      ]

      IO.puts("| #{grid_name(interval_us)} grid | p50 | p90 | p99 | p99.9 | max |")
      IO.puts("|---|---|---|---|---|---|")

      medians =
        for {name, wait} <- rows do
          lates = grid(wait, interval, ticks)
          cells = summary(lates)
          IO.puts("| #{name} | " <> Enum.join(cells, " | ") <> " |")
          {name, hd(cells)}
        end

      erlang = medians |> List.keyfind("Erlang timer", 0) |> elem(1)
      port = medians |> List.keyfind("punctual", 0) |> elem(1)

      IO.puts(
        "\nmedian: punctual #{port} µs, Erlang timer #{erlang} µs (ratio #{ratio(port, erlang)})\n"
      )
    end
  end

  # nanosleep 0.3's sleep_until without spin: ask for what is left, wait for the answer.
  defp nanosleep(port, deadline) do
    Port.command(port, <<deadline - System.monotonic_time(:nanosecond)::signed-64>>)
    receive do: ({^port, {:data, <<_slept::64>>}} -> :ok)
  end

  defp erlang(deadline) do
    ref = :erlang.start_timer(div(deadline + 999_999, 1_000_000), self(), :tick, abs: true)
    receive do: ({:timeout, ^ref, :tick} -> :ok)
  end

  # Waits for each tick of a grid that starts one interval from now; the lateness of each.
  defp grid(wait, interval, ticks) do
    start = System.monotonic_time(:nanosecond) + interval

    for i <- 0..(ticks - 1) do
      deadline = start + i * interval
      wait.(deadline)
      System.monotonic_time(:nanosecond) - deadline
    end
  end

  defp summary(lates) do
    sorted = lates |> Enum.sort() |> List.to_tuple()
    n = tuple_size(sorted)
    at = fn q -> elem(sorted, min(n - 1, trunc(q * n))) end
    Enum.map(Enum.map(@quantiles, at) ++ [elem(sorted, n - 1)], &div(&1, 1000))
  end

  defp ratio(_port, 0), do: "n/a"
  defp ratio(port, erlang), do: "1/#{Float.round(erlang / max(port, 1), 1)}"

  defp grid_name(1000), do: "1 ms"
  defp grid_name(us), do: "#{us} µs"
end

Compare.run(System.argv())
