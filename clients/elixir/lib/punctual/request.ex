defmodule Punctual.Request do
  @moduledoc false
  # A wake as the program is asked for it, or the error that it cannot be: the wire carries
  # durations and deadlines as signed 64-bit nanoseconds, and a value past that range is
  # refused here, before anything is registered or sent, rather than truncated.

  alias Punctual.{Options, Wire}
  require Wire

  # The :atomics slot that holds the port's clock minus the BEAM's (see Punctual.Server).
  @offset 2

  # `how` is `{:after, ns, port_spin}` or `{:at, deadline, spin, port_spin}`: a deadline on
  # the BEAM's clock, to be woken `spin` before it; or one of protocol 2's questions,
  # answered with a value rather than a wake: `:timer_info`, `{:probe, samples}`,
  # `{:verdict, floor_ns, costs}`, `{:cheat_sheet, quantum_ns, bands}`.
  def encode(%{protocol: 2}, id, :timer_info), do: {:ok, Wire.timer_info(id)}
  def encode(%{protocol: 2}, id, {:probe, samples}), do: {:ok, Wire.probe(id, samples)}

  def encode(%{protocol: 2}, id, {:verdict, floor_ns, costs}),
    do: {:ok, Wire.verdict(id, floor_ns, costs)}

  def encode(%{protocol: 2}, id, {:cheat_sheet, quantum_ns, bands}),
    do: {:ok, Wire.cheat_sheet(id, quantum_ns, bands)}

  # Protocol 1 carries wakes only.
  def encode(%{protocol: 1}, _id, :timer_info), do: {:error, :unsupported}

  def encode(%{protocol: 1}, _id, {question, _, _})
      when question in [:verdict, :cheat_sheet],
      do: {:error, :unsupported}

  def encode(%{protocol: 1}, _id, {:probe, _}), do: {:error, :unsupported}

  def encode(%{protocol: 2, counters: counters}, id, how) do
    case how do
      {:after, ns, port_spin} ->
        with :ok <- carried(:nanoseconds, ns, ns), do: {:ok, Wire.wake_after(id, ns, port_spin)}

      {:at, deadline, spin, port_spin} ->
        offset = :atomics.get(counters, @offset)

        with :ok <- carried(:deadline, deadline, deadline),
             :ok <- carried(:deadline, deadline, deadline + offset),
             :ok <- carried(:spin, spin, deadline - spin + offset) do
          {:ok, Wire.wake_at(id, deadline - spin + offset, port_spin)}
        end
    end
  end

  # Protocol 1 sends durations, worked out by the server when the port is free: a
  # deadline's is what is left of it then (never more than now); a duration is sent as it
  # is, as nanosleep does, so what the program reports slept is never less than asked.
  def encode(%{protocol: 1}, _id, {_, _, _, port_spin}) when port_spin != 0,
    do: {:error, :unsupported}

  def encode(%{protocol: 1}, _id, {_, _, port_spin}) when port_spin != 0,
    do: {:error, :unsupported}

  def encode(%{protocol: 1}, id, how) do
    case how do
      {:after, ns, 0} ->
        with :ok <- carried(:nanoseconds, ns, ns), do: {:ok, {:wake, id, {:after, ns}}}

      {:at, deadline, spin, 0} ->
        now = System.monotonic_time(:nanosecond)

        with :ok <- carried(:deadline, deadline, deadline),
             :ok <- carried(:deadline, deadline, deadline - now),
             :ok <- carried(:spin, spin, deadline - spin - now) do
          {:ok, {:wake, id, {:at, deadline - spin}}}
        end
    end
  end

  # Whether `on_wire`, what `value` (the argument `name`) becomes on the wire, fits there:
  # both protocols carry durations and deadlines as signed 64-bit nanoseconds.
  defp carried(name, value, on_wire) do
    if Wire.is_i64(on_wire), do: :ok, else: Options.invalid(name, value)
  end
end
