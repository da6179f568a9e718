defmodule Punctual.Options do
  @moduledoc false
  # Checks what callers pass, before anything is started or sent: every value that is of
  # the wrong type, out of the wire's range or not an option of the call comes back as
  # `{:error, {:invalid, name, value}}`, naming the option or argument. The ranges are the
  # wire's (docs/port-protocol.md): durations and deadlines are i64 nanoseconds, a spin
  # tail per wake a u32, the program's `--spin` and `--max-pending` 64-bit.

  @u32_max 0xFFFF_FFFF
  @u64_max 0xFFFF_FFFF_FFFF_FFFF

  # Each option of `open/1`: its default and the kind of value it takes.
  @open %{
    protocol: {2, :protocol},
    realtime: {true, :boolean},
    priority: {nil, :priority},
    port_spin: {0, :u64},
    strategy: {:native, :strategy},
    max_pending: {nil, :max_pending},
    path: {nil, :path}
  }

  @doc false
  def invalid(name, value), do: {:error, {:invalid, name, value}}

  @doc """
  The options of `open/1` (and of `start_link/1`, which also takes `:name`) as a map, with
  `:args`, the program's command line.
  """
  def open(opts, extra \\ %{}) do
    with {:ok, o} <- check(opts, spec(Map.merge(@open, extra))),
         :ok <- consistent(o) do
      {:ok, Map.put(o, :args, args(o))}
    end
  end

  @doc """
  A call's options, `%{key => {default, kind}}`, as `check/2` takes them: worked out once,
  at compile time, since every call checks its options.
  """
  def spec(options) do
    {Map.new(options, fn {key, {default, _kind}} -> {key, default} end),
     Map.new(options, fn {key, {_default, kind}} -> {key, kind} end)}
  end

  @doc """
  Checks a call's keyword options against a `spec/1` and returns them as a map with the
  defaults filled in.
  """
  def check([], {defaults, _kinds}), do: {:ok, defaults}

  def check(opts, {defaults, kinds}) when is_list(opts) do
    Enum.reduce_while(opts, {:ok, defaults}, fn
      {key, value}, {:ok, acc} when is_atom(key) and is_map_key(kinds, key) ->
        kind = Map.fetch!(kinds, key)

        if valid?(kind, value),
          do: {:cont, {:ok, Map.put(acc, key, value)}},
          else: {:halt, invalid(key, value)}

      {key, value}, _ when is_atom(key) ->
        {:halt, invalid(key, value)}

      _, _ ->
        {:halt, invalid(:options, opts)}
    end)
  end

  def check(opts, _spec), do: invalid(:options, opts)

  @doc "Whether `value` is a timeout in milliseconds: `:infinity` or an integer >= 0."
  def timeout?(value), do: valid?(:timeout, value)

  defp valid?(:protocol, value), do: value in [1, 2]
  defp valid?(:boolean, value), do: is_boolean(value)
  defp valid?(:priority, value), do: value == nil or (is_integer(value) and value in 1..99)
  defp valid?(:u32, value), do: is_integer(value) and value >= 0 and value <= @u32_max
  defp valid?(:u64, value), do: is_integer(value) and value >= 0 and value <= @u64_max
  defp valid?(:non_neg, value), do: is_integer(value) and value >= 0
  defp valid?(:integer, value), do: is_integer(value)
  defp valid?(:policy, value), do: value in Punctual.Grid.policies()
  defp valid?(:hook, value), do: value == nil or is_function(value, 0)
  defp valid?(:sleep, value), do: value in [:os, :process_sleep] or is_function(value, 1)
  defp valid?(:clock, value), do: value == nil or is_function(value, 0)
  defp valid?(:bands, value), do: is_integer(value) and value in 1..1000
  defp valid?(:quantum, value), do: is_integer(value) and value > 0 and value <= @u64_max
  defp valid?(:samples, value), do: is_integer(value) and value in 1..1000
  defp valid?(:strategy, value), do: value in [:native, :hybrid, :spin]
  defp valid?(:max_pending, nil), do: true
  defp valid?(:max_pending, value), do: is_integer(value) and value >= 1 and value <= @u64_max
  defp valid?(:path, value), do: value == nil or is_binary(value)
  defp valid?(:timeout, value), do: value == :infinity or (is_integer(value) and value >= 0)

  defp valid?(:name, value) do
    is_atom(value) or match?({:global, _}, value) or
      match?({:via, module, _} when is_atom(module), value)
  end

  # Options each valid alone that the program would refuse, or ignore, together.
  defp consistent(%{realtime: false, priority: priority}) when priority != nil,
    do: invalid(:priority, priority)

  defp consistent(%{protocol: 2, strategy: strategy}) when strategy != :native,
    do: invalid(:strategy, strategy)

  defp consistent(%{protocol: 1, strategy: strategy, port_spin: ns})
       when strategy != :native and ns > 0,
       do: invalid(:port_spin, ns)

  defp consistent(%{protocol: 1, max_pending: n}) when n != nil, do: invalid(:max_pending, n)
  defp consistent(_options), do: :ok

  defp args(o) do
    ["--protocol", "#{o.protocol}"] ++
      realtime_args(o) ++
      if(o.port_spin > 0, do: ["--spin", "#{o.port_spin}"], else: []) ++
      if(o.strategy != :native, do: ["--strategy", "#{o.strategy}"], else: []) ++
      if o.max_pending, do: ["--max-pending", "#{o.max_pending}"], else: []
  end

  defp realtime_args(%{realtime: false}), do: ["--no-realtime"]

  defp realtime_args(%{priority: priority}) when priority != nil,
    do: ["--priority", "#{priority}"]

  defp realtime_args(_o) do
    if :os.type() == {:unix, :linux}, do: ["--above", System.pid()], else: []
  end
end
