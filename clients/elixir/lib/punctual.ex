defmodule Punctual do
  @moduledoc """
  Sleeps shorter than a millisecond, for every process of a node, from one port.

  Erlang's timers count milliseconds: a 1 ms grid ticks about 1.6 ms late. Punctual runs
  `punctual-port`, a small Rust program, as a port: it sleeps on the operating system's
  high-resolution timer and answers, and the answer wakes the waiting process.

      iex> {:ok, sleeper} = Punctual.open(realtime: false)
      iex> {:ok, slept} = Punctual.sleep(sleeper, 250_000)
      iex> slept >= 250_000
      true

  ## One port for many processes

  `open/1` starts a process that owns the port, linked to the caller and ending with it;
  `start_link/1` does the same under a supervisor. The handle it returns may be passed to
  any process: with the default protocol 2 they all share the one port, each wake tagged
  with its own id, and their requests go straight to the port. With `protocol: 1`
  (nanosleep's) the port sleeps one request at a time and the others wait their turn.

  ## Blocking, or as messages

  `sleep/3` and `sleep_until/3` block the calling process. A process that does more than
  sleep, such as a GenServer, asks with `wake_after/3` or `wake_at/3` and hands what
  arrives to `message/2`:

      def handle_info(message, %{sleeper: sleeper} = state) do
        case Punctual.message(sleeper, message) do
          {:woke, id, lateness_ns} -> ...
          {:closed, reason} -> ...
          :other -> ...
        end
      end

  A sleep that times out leaves nothing behind in the caller's mailbox: the answer, if it
  comes later, is dropped.

  ## On the microsecond

  The program wakes within microseconds; its answer then waits for the BEAM to deliver
  it, tens of microseconds more. `sleep_until/3` with `spin:` asks to be woken that much
  early and waits out the rest busy, in the calling process, which takes the delivery out
  of the timing for that much CPU per wake. `port_spin:` asks the *program* to spin the
  last stretch before it answers, which takes the operating system's wake-up latency out
  of the lateness it reports (protocol 2).

  ## Real time

  By default the program asks to be scheduled in real time: on Linux SCHED_FIFO one
  priority above the BEAM's (the lowest, when the BEAM is not real-time), following it
  when it changes; the time-constraint policy on macOS; time-critical priority on Windows.
  Refused, it carries on as an ordinary process. `priority: n` asks for a fixed SCHED_FIFO
  priority instead, and `open/1` fails with `:priority_refused` when that is refused.

  ## The program

  `open(path: ...)`, the `:port_path` application setting or the `PUNCTUAL_PORT`
  environment variable name the `punctual-port` binary; otherwise it is the release build
  in the repository this package was compiled in, which `mix compile` builds with
  `cargo build --release -p punctual-port`. `docs/port-protocol.md` in the repository
  describes both protocols byte by byte.
  """

  alias Punctual.Wire

  defstruct [:server, :port, :protocol, :table, :counters]

  @typedoc "A handle on a running port program, usable from any process."
  @opaque t :: %__MODULE__{}

  @typedoc "The id of a wake asked for with `wake_after/3` or `wake_at/3`."
  @type id :: pos_integer

  @ids 1
  @offset 2

  @doc """
  Starts the program and a process owning it, linked to the caller and ending with it.

  ## Options

    * `:protocol` - `2` (default): many wakes at once through one port; `1`: nanosleep's
      protocol, one sleep at a time.
    * `:realtime` - whether the program asks to be scheduled in real time (default
      `true`); see the module doc.
    * `:priority` - a SCHED_FIFO priority from 1 to 99 to ask for and keep (Linux);
      refused, `open/1` returns `{:error, :priority_refused}`.
    * `:port_spin` - nanoseconds the program spins before every wake (default 0).
    * `:strategy` - protocol 1's way of sleeping: `:native` (default), `:hybrid` or `:spin`.
    * `:max_pending` - protocol 2's limit on pending wakes (default 1,000,000).
    * `:path` - the `punctual-port` binary.

  ## Errors

  `{:error, :priority_refused}`, `{:error, {:port_exited, status}}` when the program ends
  before answering, `{:error, {:no_port_program, path}}` when there is no binary there.
  Options that make no sense raise `ArgumentError`.
  """
  @spec open(keyword) :: {:ok, t} | {:error, term}
  def open(opts \\ []) do
    args = port_args(opts)

    case GenServer.start(Punctual.Server, {opts, args, self()}) do
      {:ok, server} ->
        Process.link(server)
        {:ok, GenServer.call(server, :handle)}

      {:error, reason} ->
        {:error, reason}
    end
  end

  @doc """
  Starts the program under a supervisor: a port that serves the whole node, until the
  supervisor stops it. Takes the options of `open/1`, and `:name` to register it; get
  its handle with `handle/1`.
  """
  @spec start_link(keyword) :: GenServer.on_start()
  def start_link(opts \\ []) do
    args = port_args(opts)
    GenServer.start_link(Punctual.Server, {opts, args, nil}, Keyword.take(opts, [:name]))
  end

  @doc false
  def child_spec(opts) do
    %{id: Keyword.get(opts, :name, __MODULE__), start: {__MODULE__, :start_link, [opts]}}
  end

  @doc "The handle of a port started with `start_link/1`, by its pid or name."
  @spec handle(GenServer.server()) :: t
  def handle(server), do: GenServer.call(server, :handle)

  @doc """
  Sleeps for `nanoseconds` in the calling process and returns the nanoseconds slept as the
  program measured them, from reading the request to waking. `timeout` is how many
  milliseconds to wait for the answer at most.
  """
  @spec sleep(t, integer, timeout) :: {:ok, non_neg_integer} | {:error, :closed | :timeout}
  def sleep(%__MODULE__{} = sleeper, nanoseconds, timeout \\ :infinity)
      when is_integer(nanoseconds) do
    with {:ok, _lateness, slept} <- await(sleeper, {:after, nanoseconds, 0}, timeout) do
      {:ok, slept}
    end
  end

  @doc """
  Sleeps until `deadline`, a `System.monotonic_time(:nanosecond)`, in the calling process,
  and returns how late it woke, in nanoseconds, by the BEAM's clock.

  ## Options

    * `:spin` - nanoseconds to wait busy at the end, in this process (default 0): the
      program is asked to answer that much early.
    * `:port_spin` - nanoseconds the program spins before it answers (protocol 2).
    * `:timeout` - milliseconds to wait for the program's answer at most (default
      `:infinity`).
  """
  @spec sleep_until(t, integer, keyword) ::
          {:ok, non_neg_integer} | {:error, :closed | :timeout}
  def sleep_until(%__MODULE__{} = sleeper, deadline, opts \\ []) when is_integer(deadline) do
    spin = Keyword.get(opts, :spin, 0)
    how = {:at, deadline - spin, Keyword.get(opts, :port_spin, 0)}

    with {:ok, _lateness, _slept} <- await(sleeper, how, Keyword.get(opts, :timeout, :infinity)) do
      spin_until(deadline)
      {:ok, System.monotonic_time(:nanosecond) - deadline}
    end
  end

  @doc """
  Asks to be woken after `nanoseconds`. The answer comes to the caller as a message for
  `message/2`: `{:woke, id, lateness_ns}`. Takes `port_spin:` as `sleep_until/3` does.
  """
  @spec wake_after(t, integer, keyword) :: {:ok, id} | {:error, :closed}
  def wake_after(%__MODULE__{} = sleeper, nanoseconds, opts \\ []) when is_integer(nanoseconds) do
    ask(sleeper, self(), :message, {:after, nanoseconds, Keyword.get(opts, :port_spin, 0)})
  end

  @doc """
  Asks to be woken at `deadline`, a `System.monotonic_time(:nanosecond)`; the answer comes
  as for `wake_after/3`.

  With `spin: nanoseconds` it asks to be woken that much early; the caller then waits out
  the rest with `spin_until/1`. Takes `port_spin:` as `sleep_until/3` does.
  """
  @spec wake_at(t, integer, keyword) :: {:ok, id} | {:error, :closed}
  def wake_at(%__MODULE__{} = sleeper, deadline, opts \\ []) when is_integer(deadline) do
    how = {:at, deadline - Keyword.get(opts, :spin, 0), Keyword.get(opts, :port_spin, 0)}
    ask(sleeper, self(), :message, how)
  end

  @doc """
  Cancels a wake asked for with `wake_after/3` or `wake_at/3`: `:ok` when it was still
  pending, and then no message comes for it; `{:error, :not_pending}` when it had already
  fired (its message is in, or on its way to, the mailbox) or was cancelled.
  """
  @spec cancel(t, id) :: :ok | {:error, :not_pending}
  def cancel(%__MODULE__{} = sleeper, id) when is_integer(id) do
    case take(sleeper, id) do
      true -> :ok
      false -> {:error, :not_pending}
    end
  end

  @doc """
  What a message means for the sleeper: `{:woke, id, lateness_ns}` for a wake;
  `{:error, id, reason}` for a wake the program refused; `{:closed, reason}` when the
  program has ended (its exit status) or was closed; `:other` for anything else.
  """
  @spec message(t, term) ::
          {:woke, id, non_neg_integer} | {:error, id, atom} | {:closed, term} | :other
  def message(%__MODULE__{server: server}, {:punctual, server, event}), do: event
  def message(%__MODULE__{server: server}, {:EXIT, server, reason}), do: {:closed, reason}
  def message(%__MODULE__{}, _message), do: :other

  @doc """
  Waits busy until `deadline`, a `System.monotonic_time(:nanosecond)`: the last stretch
  after `wake_at/3` with `spin:`. Returns at once for a deadline that has passed.
  """
  @spec spin_until(integer) :: :ok
  def spin_until(deadline) do
    if System.monotonic_time(:nanosecond) < deadline, do: spin_until(deadline), else: :ok
  end

  @doc "The operating system's process id of the program, or nil once it has ended."
  @spec os_pid(t) :: non_neg_integer | nil
  def os_pid(%__MODULE__{port: port}) do
    case Port.info(port, :os_pid) do
      {:os_pid, pid} when is_integer(pid) -> pid
      _ -> nil
    end
  end

  @doc "Closes the port, which ends the program. Pending wakes get `{:closed, :closed}`."
  @spec close(t) :: :ok
  def close(%__MODULE__{server: server}) do
    GenServer.stop(server, :normal)
  catch
    :exit, _ -> :ok
  end

  # Registers a wake, then asks the program for it. Bad arguments raise before anything
  # is registered.
  defp ask(sleeper, destination, kind, how) do
    id = :atomics.add_get(sleeper.counters, @ids, 1)
    request = encode(sleeper, id, how)
    asked = with {:after, ns, _} <- how, do: ns, else: (_ -> nil)

    if register(sleeper, {id, destination, kind, asked}) and deliver(sleeper, request) do
      {:ok, id}
    else
      take(sleeper, id)
      {:error, :closed}
    end
  end

  defp encode(%{protocol: 2, counters: counters}, id, how) do
    case how do
      {:after, ns, port_spin} ->
        Wire.wake_after(id, ns, port_spin)

      {:at, deadline, port_spin} ->
        Wire.wake_at(id, deadline + :atomics.get(counters, @offset), port_spin)
    end
  end

  # Protocol 1 sends durations, worked out by the server when the port is free: a
  # deadline's is what is left of it then; a duration is sent as it is, as nanosleep does,
  # so what the program reports slept is never less than asked.
  defp encode(%{protocol: 1}, id, how) do
    case how do
      {:after, ns, 0} ->
        {:wake, id, {:after, ns}}

      {:at, deadline, 0} ->
        {:wake, id, {:at, deadline}}

      _ ->
        raise ArgumentError, "port_spin: per wake needs protocol 2; open with port_spin: instead"
    end
  end

  defp register(sleeper, entry) do
    :ets.insert(sleeper.table, entry)
  rescue
    # The table went with the server.
    ArgumentError -> false
  end

  defp deliver(%{protocol: 2, port: port}, request) do
    Port.command(port, request)
  rescue
    ArgumentError -> false
  end

  defp deliver(%{protocol: 1, server: server}, request) do
    GenServer.cast(server, request)
    true
  end

  # Whether this call took the entry (and so the wake is its to cancel).
  defp take(sleeper, id) do
    case :ets.take(sleeper.table, id) do
      [_] ->
        if sleeper.protocol == 2, do: deliver(sleeper, Wire.cancel(id))
        true

      [] ->
        false
    end
  rescue
    ArgumentError -> false
  end

  # Blocks for one wake. The answer comes to an alias of a monitor on the server: the
  # monitor reports the server's end, and once the alias is gone (demonitor), a late
  # answer is dropped instead of landing in the mailbox.
  defp await(sleeper, how, timeout) do
    alias = :erlang.monitor(:process, sleeper.server, [{:alias, :demonitor}])

    case ask(sleeper, alias, :reply, how) do
      {:ok, id} ->
        receive do
          {^alias, {:woke, lateness, slept}} ->
            :erlang.demonitor(alias, [:flush])
            {:ok, lateness, slept}

          {^alias, {:error, reason}} ->
            :erlang.demonitor(alias, [:flush])
            {:error, reason}

          {:DOWN, ^alias, :process, _, _} ->
            {:error, :closed}
        after
          timeout ->
            :erlang.demonitor(alias, [:flush])
            # Taken here: the server will never send it. Taken by the server: it sent it
            # before the alias went (it is in the mailbox now) or after (dropped).
            take(sleeper, id)

            receive do
              {^alias, _} -> :ok
            after
              0 -> :ok
            end

            {:error, :timeout}
        end

      error ->
        :erlang.demonitor(alias, [:flush])
        error
    end
  end

  defp port_args(opts) do
    protocol =
      case Keyword.get(opts, :protocol, 2) do
        p when p in [1, 2] -> p
        p -> raise ArgumentError, "protocol: must be 1 or 2, got: #{inspect(p)}"
      end

    ["--protocol", "#{protocol}"] ++
      realtime_args(opts) ++
      spin_args(opts) ++ strategy_args(opts, protocol) ++ pending_args(opts)
  end

  defp realtime_args(opts) do
    case {Keyword.get(opts, :realtime, true), Keyword.get(opts, :priority)} do
      {true, nil} ->
        if :os.type() == {:unix, :linux}, do: ["--above", System.pid()], else: []

      {false, nil} ->
        ["--no-realtime"]

      {false, _priority} ->
        raise ArgumentError, "priority: asks for real time, which realtime: false turns off"

      {true, priority} when priority in 1..99 ->
        ["--priority", "#{priority}"]

      {true, priority} ->
        raise ArgumentError,
              "priority: must be a SCHED_FIFO priority from 1 to 99, got: #{inspect(priority)}"
    end
  end

  defp spin_args(opts) do
    case Keyword.get(opts, :port_spin, 0) do
      0 -> []
      ns when is_integer(ns) and ns > 0 -> ["--spin", "#{ns}"]
      ns -> raise ArgumentError, "port_spin: must be nanoseconds >= 0, got: #{inspect(ns)}"
    end
  end

  defp strategy_args(opts, protocol) do
    case {Keyword.get(opts, :strategy, :native), protocol} do
      {:native, _} ->
        []

      {strategy, 1} when strategy in [:hybrid, :spin] ->
        ["--strategy", "#{strategy}"]

      {strategy, _} ->
        raise ArgumentError,
              "strategy: #{inspect(strategy)} is for protocol 1's :native, :hybrid or :spin"
    end
  end

  defp pending_args(opts) do
    case Keyword.get(opts, :max_pending) do
      nil -> []
      n when is_integer(n) and n > 0 -> ["--max-pending", "#{n}"]
      n -> raise ArgumentError, "max_pending: must be a positive integer, got: #{inspect(n)}"
    end
  end
end
