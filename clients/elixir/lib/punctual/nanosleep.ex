defmodule Punctual.Nanosleep do
  @moduledoc """
  [nanosleep](https://hex.pm/packages/nanosleep) 0.3's API on punctual's port program: a
  nanosleep user swaps the dependency and the alias, and changes nothing else.

      # was: {:nanosleep, "~> 0.3"} and Nanosleep
      alias Punctual.Nanosleep

      iex> alias Punctual.Nanosleep
      iex> {:ok, sleeper} = Nanosleep.open()
      iex> {:ok, slept} = Nanosleep.sleep(sleeper, 250_000)
      iex> slept >= 250_000
      true

  Every function of nanosleep 0.3's `Nanosleep` is here, with its arity, its return
  values and its messages: `open/1`, `wake_after/2`, `wake_at/3`, `message/2`, `sleep/3`,
  `sleep_until/3`, `spin_until/1`, `os_pid/1` and `close/1`. As with nanosleep, each
  sleeper is its own program, run with nanosleep's protocol (protocol 1: one sleep at a
  time, the next request read when the last is answered), owned by the process that
  opened it and ending with it; answers to `wake_after/2` and `wake_at/3` come as
  messages for `message/2`:

      def handle_info(message, %{sleeper: sleeper} = state) do
        case Nanosleep.message(sleeper, message) do
          {:woke, _slept} -> ...
          {:closed, _status} -> ...
          :other -> ...
        end
      end

  When the program ends by itself (crashed, killed, or refused the priority asked), the
  owner gets `{:closed, status}` with its exit status, and may `open/1` again. An owner
  that traps exits also gets the end of the process that holds the port, which
  `message/2` turns into `{:closed, reason}`, as nanosleep turns the port's.

  ## Where it differs from nanosleep

  Only where nanosleep goes wrong:

    * A value it cannot take is `{:error, {:invalid, name, value}}`, before anything is
      sent: a duration or deadline that is not an integer (nanosleep raises, or with
      `spin_until/1` spins forever), or one past the signed 64-bit nanoseconds of the wire
      (nanosleep sends its low 64 bits, and sleeps some other time), a `:spin` that is not
      an integer >= 0, a bad `:timeout`.
    * A sleep that times out leaves nothing behind: nanosleep's late answer stays in the
      mailbox, where the next sleep takes it for its own. The program still sleeps it out
      before it reads the next request, as nanosleep's does.
    * `sleep/3` and `sleep_until/3` work from any process, not only the owner's; the
      answer to `wake_after/2` and `wake_at/3` comes to the process that asked.
    * `wake_at/3` works out the duration when the program is free to sleep it rather than
      when it is asked, so a wake queued behind another is not late by the wait.

  The rest of punctual (many sleepers on one port, cancelling, tickers) is `Punctual`'s.
  """

  alias Punctual.Options

  defstruct [:sleeper, :tag, :port]

  @typedoc "A sleeper: a program of its own, owned by the process that opened it."
  @opaque t :: %__MODULE__{}

  @wake_at Options.spec(%{spin: {0, :non_neg}})

  @doc """
  Starts a program for the calling process, its owner, and returns `{:ok, sleeper}`.

  ## Options

    * `:realtime` - `true` (default) to ask for real-time scheduling where the OS allows
      it: on Linux SCHED_FIFO one priority above the BEAM's (the lowest while the BEAM is
      not real-time), following it; the time-constraint policy on macOS. Without it, the
      program runs as an ordinary process, and wakes later.
    * `:priority` - Linux only: a fixed SCHED_FIFO priority, 1 to 99. When the OS refuses
      it the program exits with status 3, and the owner reads `{:closed, 3}` with
      `message/2`.

  As with nanosleep, a priority out of range, one with `realtime: false`, or one on an OS
  other than Linux raises `ArgumentError`. The program is `punctual-port`, found as
  `Punctual.open/1` finds it.
  """
  @spec open(keyword) :: {:ok, t} | {:error, term}
  def open(opts \\ []) do
    case Punctual.open_watched([protocol: 1] ++ scheduling(opts)) do
      {:ok, sleeper} ->
        {:ok, %__MODULE__{sleeper: sleeper, tag: sleeper.server, port: sleeper.port}}

      {:error, :priority_refused} ->
        ended(3)

      {:error, {:port_exited, status}} ->
        ended(status)

      {:error, reason} ->
        {:error, reason}
    end
  end

  # nanosleep's checks and messages, word for word.
  defp scheduling(opts) do
    case {Keyword.get(opts, :realtime, true), Keyword.get(opts, :priority)} do
      {true, nil} ->
        []

      {false, nil} ->
        [realtime: false]

      {false, _priority} ->
        raise ArgumentError, "priority: asks for real time, which realtime: false turns off"

      {true, priority} when is_integer(priority) and priority in 1..99 ->
        if :os.type() != {:unix, :linux} do
          raise ArgumentError,
                "priority: is the SCHED_FIFO priority on Linux; this system has none to set"
        end

        [priority: priority]

      {true, priority} ->
        raise ArgumentError,
              "priority: must be a SCHED_FIFO priority from 1 to 99, got: #{inspect(priority)}"

      {realtime, _priority} ->
        raise ArgumentError, "realtime: must be true or false, got: #{inspect(realtime)}"
    end
  end

  # A program that ended before its first answer (a priority refused): nanosleep's open
  # succeeds and the owner learns of the end from `message/2`, and so here.
  defp ended(status) do
    tag = make_ref()
    send(self(), {:punctual, tag, {:closed, status}})
    {:ok, %__MODULE__{tag: tag}}
  end

  @doc """
  Asks the program to answer after `nanoseconds`; `message/2` reads the answer as
  `{:woke, slept}`, `slept` being the nanoseconds the program measured from reading the
  request to waking (never less than asked).
  """
  @spec wake_after(t, integer) :: :ok | {:error, :closed | {:invalid, atom, term}}
  def wake_after(%__MODULE__{} = sleeper, nanoseconds), do: ask(sleeper, {:after, nanoseconds, 0})

  @doc """
  Reads a message the process received: `{:woke, slept}` answers `wake_after/2` or
  `wake_at/3`; `{:closed, status}` says the program has ended, with its exit status (or
  with the reason the port's holder ended, for an owner that traps exits); anything not
  from this sleeper is `:other`.
  """
  @spec message(t, term) :: {:woke, non_neg_integer} | {:closed, term} | :other
  def message(%__MODULE__{tag: tag}, {:punctual, tag, event}), do: event
  def message(%__MODULE__{tag: tag}, {:EXIT, tag, reason}), do: {:closed, reason}
  def message(%__MODULE__{}, _message), do: :other

  @doc """
  Blocks the calling process for `nanoseconds` and returns `{:ok, slept}`, the
  nanoseconds the program slept; `{:error, :timeout}` once `timeout` milliseconds have
  passed without an answer, `{:error, :closed}` when the program has ended.
  """
  @spec sleep(t, integer, timeout) :: {:ok, non_neg_integer} | {:error, term}
  def sleep(sleeper, nanoseconds, timeout \\ :infinity)
  def sleep(%__MODULE__{sleeper: nil}, _nanoseconds, _timeout), do: {:error, :closed}

  def sleep(%__MODULE__{sleeper: sleeper}, nanoseconds, timeout),
    do: Punctual.sleep(sleeper, nanoseconds, timeout)

  @doc """
  Asks the program to answer at `deadline`, a `System.monotonic_time(:nanosecond)`; the
  answer reads as for `wake_after/2`.

  `spin: nanoseconds` has it answer that much before the deadline, for the caller to wait
  out the rest with `spin_until/1`: that takes the BEAM's delivery of the answer out of
  the timing.
  """
  @spec wake_at(t, integer, keyword) :: :ok | {:error, :closed | {:invalid, atom, term}}
  def wake_at(%__MODULE__{} = sleeper, deadline, opts \\ []) do
    with {:ok, o} <- Options.check(only(opts, [:spin]), @wake_at) do
      ask(sleeper, {:at, deadline, o.spin, 0})
    end
  end

  @doc """
  Spins until `System.monotonic_time(:nanosecond)` reaches `deadline` (the end of a
  `wake_at/3` with `spin:`), and returns `:ok`; at once for a deadline already passed.
  """
  @spec spin_until(integer) :: :ok | {:error, {:invalid, :deadline, term}}
  defdelegate spin_until(deadline), to: Punctual

  @doc """
  Blocks the calling process until `deadline`, a `System.monotonic_time(:nanosecond)`,
  and returns `{:ok, late}`, the nanoseconds past the deadline it returned at, by the
  BEAM's clock; it never returns before the deadline.

  ## Options

    * `:spin` - the last nanoseconds to spin rather than sleep, as with `wake_at/3`
      (default 0)
    * `:timeout` - the milliseconds to block at most, spin included (default
      `:infinity`): then `{:error, :timeout}`
  """
  @spec sleep_until(t, integer, keyword) :: {:ok, non_neg_integer} | {:error, term}
  def sleep_until(sleeper, deadline, opts \\ [])
  def sleep_until(%__MODULE__{sleeper: nil}, _deadline, _opts), do: {:error, :closed}

  def sleep_until(%__MODULE__{sleeper: sleeper}, deadline, opts),
    do: Punctual.sleep_until(sleeper, deadline, only(opts, [:spin, :timeout]))

  @doc "The program's OS process id; `nil` once it has ended."
  @spec os_pid(t) :: non_neg_integer | nil
  def os_pid(%__MODULE__{sleeper: nil}), do: nil
  def os_pid(%__MODULE__{sleeper: sleeper}), do: Punctual.os_pid(sleeper)

  @doc "Ends the program; `:ok`, also for one already ended."
  @spec close(t) :: :ok
  def close(%__MODULE__{sleeper: nil}), do: :ok
  def close(%__MODULE__{sleeper: sleeper}), do: Punctual.close(sleeper)

  defp ask(%__MODULE__{sleeper: nil}, _how), do: {:error, :closed}

  defp ask(%__MODULE__{sleeper: sleeper}, how) do
    with {:ok, _id} <- Punctual.wake_slept(sleeper, how), do: :ok
  end

  # nanosleep reads the options it knows with `Keyword.get/3` and ignores the rest.
  defp only(opts, keys) when is_list(opts) do
    Enum.filter(opts, fn
      {key, _value} -> key in keys
      _other -> false
    end)
  end

  defp only(opts, _keys), do: opts
end
