defmodule Punctual.Server do
  @moduledoc false
  # The process that owns the port. Callers register each wake in a public ETS table
  # (id => who to tell) before asking for it; the server takes the entry when the answer
  # comes and sends it on. `:ets.take/2` decides every race: whoever takes an entry (the
  # server with an answer, or a caller that cancels or times out) is the only one to act
  # on it.
  #
  # Protocol 2: callers write their requests to the port themselves (any process may
  # `Port.command/2`), so a request costs no hop through this process; the answers come
  # here, packed several to a frame. Protocol 1 answers one request at a time, so requests
  # queue here and each is sent when the last has been answered, its duration worked out
  # from its deadline at that moment.

  use GenServer

  require Logger

  alias Punctual.Wire

  # The :atomics slot, shared with callers, that holds the port's clock minus ours (slot
  # 1 counts ids).
  @offset 2
  # NOW requests use id 0; wakes count up from 1.
  @clock_id 0
  @sync_samples 8
  @resync_every_ms 5_000
  @handshake_ms 10_000

  # `options` are `Punctual.Options.open/2`'s, checked.
  def init({options, owner}) do
    # So that the end of a linked opener, or the port's own exit signal, goes through
    # `terminate/2`, which tells pending wakes; the owner's monitor decides when to stop.
    Process.flag(:trap_exit, true)

    case Punctual.Binary.path(options) do
      {:ok, path} -> start_port(path, options, owner)
      {:error, reason} -> {:stop, reason}
    end
  end

  defp start_port(path, options, owner) do
    port =
      Port.open({:spawn_executable, path}, [
        :binary,
        {:packet, 2},
        :exit_status,
        :use_stdio,
        args: options.args
      ])

    state = %{
      port: port,
      protocol: options.protocol,
      table: :ets.new(__MODULE__, [:set, :public, write_concurrency: true]),
      counters: :atomics.new(2, signed: true),
      owner: owner && Process.monitor(owner),
      # Protocol 1: the request being slept, and those waiting their turn.
      current: nil,
      queue: :queue.new(),
      # Protocol 2: clock samples being taken, {sent_at, left, best}.
      sync: nil,
      # Told `{:closed, status}` once when the program ends by itself (Punctual.Nanosleep's
      # owner, as nanosleep's port tells its owner).
      watchers: Map.get(options, :watchers, [])
    }

    case handshake(state) do
      :ok -> {:ok, state}
      {:error, reason} -> {:stop, reason}
    end
  end

  # Protocol 1: a sleep of zero, answered at once. Protocol 2: the clock, several times.
  # Either way a program that refuses to start (a priority refused: status 3) fails here.
  defp handshake(%{protocol: 1, port: port}) do
    Port.command(port, Wire.p1_request(0))

    receive do
      {^port, {:data, <<_slept::64>>}} -> :ok
      {^port, {:exit_status, status}} -> {:error, exited(status)}
    after
      @handshake_ms -> {:error, :no_answer}
    end
  end

  defp handshake(%{protocol: 2, port: port, counters: counters}) do
    samples =
      Enum.reduce_while(1..@sync_samples, [], fn _, samples ->
        sent_at = System.monotonic_time(:nanosecond)
        Port.command(port, Wire.now(@clock_id))

        receive do
          {^port, {:data, <<0x82, @clock_id::64, now::signed-64>>}} ->
            {:cont, [sample(sent_at, now) | samples]}

          {^port, {:exit_status, status}} ->
            {:halt, {:error, exited(status)}}
        after
          @handshake_ms -> {:halt, {:error, :no_answer}}
        end
      end)

    with samples when is_list(samples) <- samples do
      {_round_trip, offset} = Enum.min(samples)
      :atomics.put(counters, @offset, offset)
      Process.send_after(self(), :resync, @resync_every_ms)
      :ok
    end
  end

  # The port's clock minus ours, from a NOW answered `now`: the reading is taken to be
  # halfway through the round trip, so the shortest round trip is the best sample.
  defp sample(sent_at, now) do
    received_at = System.monotonic_time(:nanosecond)
    {received_at - sent_at, now - div(sent_at + received_at, 2)}
  end

  defp exited(3), do: :priority_refused
  defp exited(status), do: {:port_exited, status}

  def handle_call(:handle, _from, state) do
    {:reply,
     %Punctual{
       server: self(),
       port: state.port,
       protocol: state.protocol,
       table: state.table,
       counters: state.counters
     }, state}
  end

  # Protocol 1: a wake to queue, `{:after, ns}` or `{:at, deadline}` on the BEAM's
  # monotonic clock.
  def handle_cast({:wake, id, when_}, %{protocol: 1} = state) do
    {:noreply, dispatch(%{state | queue: :queue.in({id, when_}, state.queue)})}
  end

  # Protocol 2: the frame decoded by `Wire.answers/1`, the decoder its tests check, so the
  # bytes read here are the bytes tested.
  def handle_info({port, {:data, payload}}, %{port: port, protocol: 2} = state) do
    {:noreply, payload |> Wire.answers() |> Enum.reduce(state, &answer/2)}
  end

  def handle_info({port, {:data, <<slept::64>>}}, %{port: port, protocol: 1} = state) do
    {id, duration} = state.current
    woke(state.table, id, max(slept - max(duration, 0), 0), slept)
    {:noreply, dispatch(%{state | current: nil})}
  end

  def handle_info({port, {:exit_status, status}}, %{port: port} = state) do
    notify_closed(state, status)
    # The table goes before the watchers are told, so that a wake asked once they know is
    # refused (`{:error, :closed}`) rather than registered with a server about to stop.
    :ets.delete(state.table)
    for pid <- state.watchers, do: send(pid, {:punctual, self(), {:closed, status}})
    {:stop, :normal, %{state | port: nil}}
  end

  def handle_info(:resync, %{protocol: 2, port: port} = state) do
    Port.command(port, Wire.now(@clock_id))
    {:noreply, %{state | sync: {System.monotonic_time(:nanosecond), @sync_samples - 1, nil}}}
  end

  def handle_info({:DOWN, ref, :process, _, _}, %{owner: ref} = state) do
    {:stop, :normal, state}
  end

  # The port's exit signal follows its exit status; a linked opener's end, its monitor.
  def handle_info({:EXIT, _from, _reason}, state), do: {:noreply, state}

  def handle_info(_other, state), do: {:noreply, state}

  def terminate(_reason, %{port: nil}), do: :ok

  def terminate(_reason, state) do
    notify_closed(state, :closed)
    Port.close(state.port)
    :ok
  rescue
    ArgumentError -> :ok
  end

  # Protocol 1: sends the next queued wake that is still wanted, if the port is free.
  defp dispatch(%{current: nil} = state) do
    case :queue.out(state.queue) do
      {:empty, _} ->
        state

      {{:value, {id, when_}}, queue} ->
        if :ets.member(state.table, id) do
          duration =
            case when_ do
              {:after, ns} -> ns
              {:at, deadline} -> max(deadline - System.monotonic_time(:nanosecond), 0)
            end

          Port.command(state.port, Wire.p1_request(duration))
          %{state | current: {id, duration}, queue: queue}
        else
          dispatch(%{state | queue: queue})
        end
    end
  end

  defp dispatch(state), do: state

  # Protocol 2: what each answer of a frame does, in the frame's order.
  defp answer({:woke, id, _deadline, lateness}, state) do
    woke(state.table, id, lateness, nil)
    state
  end

  defp answer({:clock, @clock_id, now}, state), do: resync(state, now)

  defp answer({:cancelled, _id, _pending}, state), do: state

  # TIMER, PROBED and SHEET: a value for the caller blocked on it.
  defp answer({kind, id, value}, state) when kind in [:timer, :probed, :sheet] do
    case :ets.take(state.table, id) do
      [{^id, alias, :reply, _}] -> send(alias, {alias, {:value, value}})
      _ -> :ok
    end

    state
  end

  defp answer({:error, reason, id}, state) when is_integer(id) do
    refused(state.table, id, reason)
    state
  end

  defp answer({:error, _reason, nil}, state), do: state

  defp answer({:clock, id, _now}, state) do
    Logger.error("punctual: the port answered a clock request #{id} never sent")
    state
  end

  defp answer({:malformed, bytes}, state) do
    Logger.error("punctual: unexpected bytes from the port: #{inspect(bytes, limit: 32)}")
    state
  end

  defp resync(%{sync: {sent_at, left, best}} = state, now) do
    best = if best, do: min(best, sample(sent_at, now)), else: sample(sent_at, now)

    if left > 0 do
      Port.command(state.port, Wire.now(@clock_id))
      %{state | sync: {System.monotonic_time(:nanosecond), left - 1, best}}
    else
      :atomics.put(state.counters, @offset, elem(best, 1))
      Process.send_after(self(), :resync, @resync_every_ms)
      %{state | sync: nil}
    end
  end

  defp resync(state, _now), do: state

  # Entries are {id, destination, kind, asked}: `:reply` for a blocked caller (the
  # destination is its monitor alias), `:message` for wake_after/wake_at, `:slept` for
  # Punctual.Nanosleep's, answered as nanosleep answers, with the nanoseconds slept;
  # `asked` is the duration of a WAKE_AFTER (to report what was slept), else nil.
  defp woke(table, id, lateness, slept) do
    case :ets.take(table, id) do
      [{^id, alias, :reply, asked}] ->
        send(alias, {alias, {:woke, lateness, slept || max(asked || 0, 0) + lateness}})

      [{^id, pid, :message, _}] ->
        send(pid, {:punctual, self(), {:woke, id, lateness}})

      [{^id, pid, :slept, asked}] ->
        send(pid, {:punctual, self(), {:woke, slept || max(asked || 0, 0) + lateness}})

      [] ->
        :ok
    end
  end

  defp refused(table, id, reason) do
    case :ets.take(table, id) do
      [{^id, alias, :reply, _}] ->
        send(alias, {alias, {:error, reason}})

      [{^id, pid, kind, _}] when kind in [:message, :slept] ->
        send(pid, {:punctual, self(), {:error, id, reason}})

      [] ->
        :ok
    end
  end

  # Callers blocked in a sleep learn of it from their monitor; those waiting for a
  # message get one (Punctual.Nanosleep's owner gets one in all, as a watcher).
  defp notify_closed(state, status) do
    for {id, pid, :message, _} <- :ets.tab2list(state.table) do
      :ets.delete(state.table, id)
      send(pid, {:punctual, self(), {:closed, status}})
    end

    state
  end
end
