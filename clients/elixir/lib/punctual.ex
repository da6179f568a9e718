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
  comes later, is dropped. The timeout holds whatever the deadline: it includes the
  `spin:`, and a deadline later than the timeout returns `{:error, :timeout}` at the
  timeout, without spinning.

  Protocol 1 cannot take a request back: a sleep that timed out holds the program until
  it has slept it out, and the requests behind it wait; `cancel/2` there returns
  `{:error, :unsupported}`.

  ## Errors

  Every function returns `{:ok, _}` (or `:ok`) or `{:error, reason}`, and none raises for
  a value it is given:

    * `{:error, {:invalid, name, value}}`: a value of the wrong type, one out of the
      wire's range (durations and deadlines are signed 64-bit nanoseconds there, a spin
      tail per wake 32-bit), or an option the call does not take, `name` being the
      argument (`:nanoseconds`, `:deadline`, `:timeout`, `:id`, `:options`) or the
      option's key. It is found before anything is started or sent: no request goes out,
      and no message comes of it.
    * `{:error, :unsupported}`: what protocol 1 cannot do (`cancel/2`, `port_spin:` per
      wake).
    * `{:error, :timeout}`, `{:error, :closed}`, and `open/1`'s failures to start the
      program: what happened.

  Only a first argument that is not what the function works on fails otherwise: a term
  that is not a handle raises `FunctionClauseError`, and `handle/1` of a server that is
  not running exits, as `GenServer.call/2` does.

  ## Beyond a sleep

  What punctual's other clients have: `ticker/3`, a fixed grid of ticks as messages
  with the library's missed-tick policies; `poll_until/3`, a poll loop that keeps a real
  deadline; `timer_info/2`, the timer the program's wakes wait on; `probe/2`, what a plain
  sleep costs, and `cheat_sheet/3`. A nanosleep 0.3 user wants `Punctual.Nanosleep`.

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
  environment variable name the `punctual-port` binary, the first given winning (and
  with either of the last two, `mix compile` installs no program); otherwise it is the
  one `mix compile` put in this build's `priv/`: the package's prebuilt program for the
  target, or one cargo built from the package's Rust sources. `docs/port-protocol.md` in
  the repository describes both protocols byte by byte.
  """

  alias Punctual.{Options, Request, Timeout, Wire}

  defstruct [:server, :port, :protocol, :table, :counters]

  @typedoc "A handle on a running port program, usable from any process."
  @opaque t :: %__MODULE__{}

  @typedoc "The id of a wake asked for with `wake_after/3` or `wake_at/3`."
  @type id :: pos_integer

  # The :atomics slot that counts ids (slot 2 holds the clock offset: Punctual.Request).
  @ids 1

  # The options of each call: default and kind (see Punctual.Options).
  @at %{spin: {0, :non_neg}, port_spin: {0, :u32}}
  @wake_after Options.spec(%{port_spin: {0, :u32}})
  @wake_at Options.spec(@at)
  @cheat_sheet Options.spec(%{quantum_ns: {nil, :quantum}, bands: {10, :bands}})
  @sleep_until Options.spec(Map.put(@at, :timeout, {:infinity, :timeout}))

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
    * `:strategy` - protocol 1's way of sleeping: `:native` (default), `:hybrid` or `:spin`
      (the last two choose their own spin: no `:port_spin` with them).
    * `:max_pending` - protocol 2's limit on pending wakes (default 1,000,000).
    * `:path` - the `punctual-port` binary.

  ## Errors

  `{:error, {:invalid, key, value}}` for an option it does not know or a value it cannot
  take (nothing is started); `{:error, :priority_refused}`, `{:error, {:port_exited,
  status}}` when the program ends before answering, `{:error, {:no_port_program, path}}`
  when there is no binary there.
  """
  @spec open(keyword) :: {:ok, t} | {:error, term}
  def open(opts \\ []) do
    with {:ok, options} <- Options.open(opts), do: start(options)
  end

  @doc false
  # Punctual.Nanosleep's open: the caller is also told `{:punctual, server, {:closed,
  # status}}` when the program ends by itself, as nanosleep's port tells its owner.
  def open_watched(opts) do
    with {:ok, options} <- Options.open(opts), do: start(Map.put(options, :watchers, [self()]))
  end

  defp start(options) do
    case GenServer.start(Punctual.Server, {options, self()}) do
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
  its handle with `handle/1`. Fails as `open/1` does.
  """
  @spec start_link(keyword) :: GenServer.on_start()
  def start_link(opts \\ []) do
    with {:ok, options} <- Options.open(opts, %{name: {nil, :name}}) do
      name = if options.name, do: [name: options.name], else: []
      GenServer.start_link(Punctual.Server, {options, nil}, name)
    end
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
  milliseconds to wait for the answer at most (any integer >= 0, or `:infinity`).

  ## Errors

  `{:error, :timeout}`, `{:error, :closed}`; `{:error, {:invalid, :nanoseconds, ns}}` for a
  duration that is not an integer the wire carries (a signed 64-bit count: at most
  `2**63 - 1`, some 292 years), `{:error, {:invalid, :timeout, timeout}}`. Those two are
  found before anything is sent.
  """
  @spec sleep(t, integer, timeout) :: {:ok, non_neg_integer} | {:error, term}
  def sleep(%__MODULE__{} = sleeper, nanoseconds, timeout \\ :infinity) do
    if Options.timeout?(timeout) do
      with {:ok, _lateness, slept} <-
             await(sleeper, {:after, nanoseconds, 0}, Timeout.give_up_at(timeout)) do
        {:ok, slept}
      end
    else
      Options.invalid(:timeout, timeout)
    end
  end

  @doc """
  Sleeps until `deadline`, a `System.monotonic_time(:nanosecond)`, in the calling process,
  and returns how late it woke, in nanoseconds, by the BEAM's clock.

  ## Options

    * `:spin` - nanoseconds to wait busy at the end, in this process (default 0): the
      program is asked to answer that much early.
    * `:port_spin` - nanoseconds the program spins before it answers (protocol 2), at most
      `2**32 - 1`.
    * `:timeout` - milliseconds the call blocks at most, spin included (default
      `:infinity`). A deadline later than the timeout returns `{:error, :timeout}` at the
      timeout, without spinning.

  ## Errors

  `{:error, :timeout}`, `{:error, :closed}`; before anything is sent:
  `{:error, {:invalid, :deadline, deadline}}` for a deadline the wire cannot carry: not a
  signed 64-bit integer, or (protocol 2) past one on the program's clock, which starts
  when the program does, or (protocol 1) more than `2**63 - 1` ns from now. The BEAM's
  monotonic time usually starts far below zero, and then `2**63 - 1` is out of reach on
  either. `{:error, {:invalid, key, value}}` for an option it does not know or cannot
  take, `{:error, :unsupported}` for `:port_spin` with protocol 1.
  """
  @spec sleep_until(t, integer, keyword) :: {:ok, non_neg_integer} | {:error, term}
  def sleep_until(%__MODULE__{} = sleeper, deadline, opts \\ []) do
    with {:ok, o} <- Options.check(opts, @sleep_until),
         give_up_at = Timeout.give_up_at(o.timeout),
         {:ok, _lateness, _slept} <-
           await(sleeper, {:at, deadline, o.spin, o.port_spin}, give_up_at) do
      if Timeout.reachable?(deadline, give_up_at) do
        spin_until(deadline)
        {:ok, System.monotonic_time(:nanosecond) - deadline}
      else
        Timeout.wait_until(give_up_at)
        {:error, :timeout}
      end
    end
  end

  @doc """
  Asks to be woken after `nanoseconds`. The answer comes to the caller as a message for
  `message/2`: `{:woke, id, lateness_ns}`. Takes `port_spin:` as `sleep_until/3` does, and
  fails before anything is sent as `sleep/3` does.
  """
  @spec wake_after(t, integer, keyword) :: {:ok, id} | {:error, term}
  def wake_after(%__MODULE__{} = sleeper, nanoseconds, opts \\ []) do
    with {:ok, o} <- Options.check(opts, @wake_after) do
      ask(sleeper, self(), :message, {:after, nanoseconds, o.port_spin})
    end
  end

  @doc """
  Asks to be woken at `deadline`, a `System.monotonic_time(:nanosecond)`; the answer comes
  as for `wake_after/3`.

  With `spin: nanoseconds` it asks to be woken that much early; the caller then waits out
  the rest with `spin_until/1`. Takes `port_spin:` as `sleep_until/3` does, and fails
  before anything is sent as `sleep_until/3` does.
  """
  @spec wake_at(t, integer, keyword) :: {:ok, id} | {:error, term}
  def wake_at(%__MODULE__{} = sleeper, deadline, opts \\ []) do
    with {:ok, o} <- Options.check(opts, @wake_at) do
      ask(sleeper, self(), :message, {:at, deadline, o.spin, o.port_spin})
    end
  end

  @doc false
  # Punctual.Nanosleep's wakes: `how` as `Punctual.Request.encode/3` takes it, answered
  # to the caller as `{:punctual, server, {:woke, slept_ns}}`.
  def wake_slept(%__MODULE__{} = sleeper, how), do: ask(sleeper, self(), :slept, how)

  @doc """
  Cancels a wake asked for with `wake_after/3` or `wake_at/3`: `:ok` when it was still
  pending, and then no message comes for it; `{:error, :not_pending}` when it had already
  fired (its message is in, or on its way to, the mailbox) or was cancelled.

  Protocol 1 cannot cancel: the program sleeps each request out, and the ones behind it
  wait. There `cancel/2` returns `{:error, :unsupported}` and the wake still comes.
  """
  @spec cancel(t, id) :: :ok | {:error, :not_pending | :unsupported | {:invalid, :id, term}}
  def cancel(%__MODULE__{}, id) when not is_integer(id), do: Options.invalid(:id, id)
  def cancel(%__MODULE__{protocol: 1}, _id), do: {:error, :unsupported}

  def cancel(%__MODULE__{} = sleeper, id) do
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

  @doc false
  # Takes a wake back whatever the protocol: true when no answer will come for it (with
  # protocol 1 the program still sleeps it out). For the ticker's stop.
  def withdraw(%__MODULE__{} = sleeper, id), do: take(sleeper, id)

  @doc """
  Starts a ticker: a fixed grid whose ticks come to the calling process as messages, for
  `tick/2` to read. Tick `k` is due at `first + k * period` (`period` in nanoseconds,
  `first` a `System.monotonic_time(:nanosecond)`), each deadline computed in integer
  nanoseconds from `first`, never by adding periods up, so no tick drifts. No tick is
  ever handed over before its deadline by the BEAM's clock.

  One wake is pending at a time: `tick/2` asks for the next as it hands over a tick, so
  the process that calls it gets the next message.

  ## Options

    * `:first` - when tick 0 is due (default: one period from now); it may be past.
    * `:policy` - what a tick that is overdue when the next wake is asked does, as in
      punctual's other clients: `:skip` (default) drops the grid points already past,
      counting them in `missed`, and waits for the first one ahead (the grid never
      moves); `:burst` fires every overdue tick at once, in order; `:delay` fires the
      overdue tick at once and re-anchors the grid on it, later ticks a whole number of
      periods after. The next wake is asked when a tick is handed over, so a consumer
      whose work overruns a period sees it as the next tick's lateness, and the policy
      acts on the tick after.
    * `:spin` - nanoseconds before each deadline to be woken, the rest spun out in
      `tick/2` (default 0), as with `sleep_until/3`.
    * `:port_spin` - the program's spin before each answer (protocol 2), as with
      `wake_at/3`.

  ## Errors

  `{:error, {:invalid, name, value}}` before anything is asked: `:period` for a period
  that is not an integer > 0 (or whose first tick the wire cannot carry: `2**63 - 1`),
  `:first`, `:policy`, `:spin`, `:port_spin`, `:options`.

  ## Examples

      {:ok, ticker} = Punctual.ticker(sleeper, 1_000_000, policy: :skip)

      def handle_info(message, %{ticker: ticker} = state) do
        case Punctual.tick(ticker, message) do
          {:tick, %Punctual.Tick{index: k, lateness_ns: late}, ticker} -> ...
          {:closed, reason} -> ...
          :other -> ...
        end
      end
  """
  @spec ticker(t, pos_integer, keyword) :: {:ok, Punctual.Ticker.t()} | {:error, term}
  def ticker(%__MODULE__{} = sleeper, period, opts \\ []),
    do: Punctual.Ticker.start(sleeper, period, opts)

  @doc """
  What a message means for a ticker: `{:tick, tick, ticker}` for its tick (a
  `Punctual.Tick`) with the ticker to keep, which has asked for the next;
  `{:stopped, tick, reason}` for a tick after which no other can be asked (the next grid
  point past what the wire carries: `{:invalid, :deadline, d}`, or `:closed`);
  `{:error, reason}` when the program refused the wake (`:too_many_pending`);
  `{:closed, reason}` when the program has ended; `:other` for anything else.
  """
  @spec tick(Punctual.Ticker.t(), term) ::
          {:tick, Punctual.Tick.t(), Punctual.Ticker.t()}
          | {:stopped, Punctual.Tick.t(), term}
          | {:error, term}
          | {:closed, term}
          | :other
  defdelegate tick(ticker, message), to: Punctual.Ticker

  @doc """
  Blocks until the ticker's next message and reads it as `tick/2` does, for a process
  that only ticks. `{:error, :timeout}` after `timeout` milliseconds (default
  `:infinity`), `{:error, :stopped}` for a ticker that has stopped.
  """
  @spec await_tick(Punctual.Ticker.t(), timeout) ::
          {:tick, Punctual.Tick.t(), Punctual.Ticker.t()}
          | {:stopped, Punctual.Tick.t(), term}
          | {:error, term}
          | {:closed, term}
  def await_tick(ticker, timeout \\ :infinity), do: Punctual.Ticker.await(ticker, timeout)

  @doc """
  Stops a ticker: its pending wake is taken back, and once this returns no message of
  it comes (one already sent is taken out of the mailbox). Always `:ok`.
  """
  @spec stop_ticker(Punctual.Ticker.t()) :: :ok
  defdelegate stop_ticker(ticker), to: Punctual.Ticker, as: :stop

  @doc """
  Calls `condition` until it is met, sleeping a step between calls, until a real
  deadline: what a loop of `Process.sleep/1` and a counter does, without sleeping past
  the deadline or reporting a timeout before it. As `punctual::Poller` does in Rust.

  `condition` is a function of no arguments: `nil` or `false` means not yet, `{:error,
  reason}` gives up with that error, `{:ok, value}` or any other value is met. Each sleep
  is a `step`, cut short to end at the deadline, and the condition is checked once more
  at the deadline before a timeout is reported, so a timeout comes within the deadline
  and one check. What `condition` or `before_sleep` raises is raised.

  ## Options

  At most one of `:timeout` and `:deadline`; with neither there is no deadline (as
  `timeout: :infinity`), and the loop ends only when the condition is met or fails:

    * `:timeout` - milliseconds from the call (or `:infinity`, the default).
    * `:deadline` - a `System.monotonic_time(:nanosecond)`.
    * `:step` - nanoseconds between calls (default 1,000,000; 0 calls again at once).
    * `:before_sleep` - a function of no arguments run before each sleep (a watchdog's
      kick, a flush); what it returns is ignored.

  ## Returns

  `{:ok, value}` when met (`value` unwrapped from `{:ok, value}`); the condition's own
  `{:error, reason}`; `{:error, {:timeout, elapsed_ns, polls}}` when the deadline passed
  first, `elapsed_ns` counted from the call (never less than the timeout) and `polls` the
  calls made; `{:error, :closed}` when the program ends. Before anything is called:
  `{:error, {:invalid, name, value}}` for a `condition` that is not a function of no
  arguments, both `:timeout` and `:deadline` (`{:invalid, :deadline, deadline}`), or a bad
  option. A step whose end is past what the wire carries is `{:error, {:invalid, :step,
  step}}` at the first sleep.

  ## Examples

      iex> {:ok, sleeper} = Punctual.open(realtime: false)
      iex> ready_at = System.monotonic_time(:nanosecond) + 3_000_000
      iex> Punctual.poll_until(sleeper, fn -> System.monotonic_time(:nanosecond) >= ready_at end,
      ...>   timeout: 1_000, step: 500_000)
      {:ok, true}
      iex> {:error, {:timeout, elapsed_ns, _polls}} =
      ...>   Punctual.poll_until(sleeper, fn -> false end, timeout: 5)
      iex> elapsed_ns >= 5_000_000
      true
      iex> ready_at = System.monotonic_time(:nanosecond) + 2_000_000
      iex> Punctual.poll_until(sleeper, fn -> System.monotonic_time(:nanosecond) >= ready_at end)
      {:ok, true}
  """
  @spec poll_until(t, (() -> term), keyword) :: {:ok, term} | {:error, term}
  def poll_until(%__MODULE__{} = sleeper, condition, opts \\ []),
    do: Punctual.Poll.until(sleeper, condition, opts)

  @doc """
  Waits busy until `deadline`, a `System.monotonic_time(:nanosecond)`: the last stretch
  after `wake_at/3` with `spin:`. Returns at once for a deadline that has passed, and
  `{:error, {:invalid, :deadline, deadline}}` for one that is not an integer.
  """
  @spec spin_until(integer) :: :ok | {:error, {:invalid, :deadline, term}}
  def spin_until(deadline) when is_integer(deadline) do
    if System.monotonic_time(:nanosecond) < deadline, do: spin_until(deadline), else: :ok
  end

  def spin_until(deadline), do: Options.invalid(:deadline, deadline)

  @doc """
  What the program's wakes wait on, as its timer thread uses them: punctual's
  `timer_info()` of the other clients, asked of the port (protocol 2's TIMER_INFO).

      {:ok,
       %{
         mechanism: "futex(FUTEX_WAIT_BITSET) with an absolute CLOCK_MONOTONIC timeout",
         high_resolution: true,
         resolution_ns: 1,
         timer_slack_ns: 1,
         degraded: nil
       }}

    * `:mechanism` - the OS call the timer thread waits with.
    * `:high_resolution` - whether it can wake finer than a scheduler tick.
    * `:resolution_ns` - the resolution the OS reports for its monotonic clock, or nil.
    * `:timer_slack_ns` - the timer thread's timer slack in force (Linux: 1 as the program
      sets it, 0 under a real-time policy), nil where there is none.
    * `:degraded` - why it is not the best timer this OS family offers, or nil.

  `timeout` is in milliseconds (default 5,000). `{:error, :unsupported}` with protocol 1,
  and from a program older than the request; `{:error, :timeout}`, `{:error, :closed}`,
  `{:error, {:invalid, :timeout, timeout}}`.
  """
  @spec timer_info(t, timeout) :: {:ok, map} | {:error, term}
  def timer_info(%__MODULE__{} = sleeper, timeout \\ 5_000) do
    if Options.timeout?(timeout) do
      case await(sleeper, :timer_info, Timeout.give_up_at(timeout)) do
        # A program from before TIMER_INFO does not know the request.
        {:error, :unknown_kind} -> {:error, :unsupported}
        answer -> answer
      end
    else
      Options.invalid(:timeout, timeout)
    end
  end

  @doc """
  Times a plain sleep back to back, for requests of 1, 2, 5, 10, 15, 16, 20 and 30 ms,
  and says whether it is quantised: every request costing a whole number of one tick, as
  Windows' 15.625 ms one does. The verdict is the library's (`punctual::quantum`, the
  same as `punctual probe` and every other client's), worked out by the program.

      {:ok,
       %{
         sleep: :os,
         primitive: "std::thread::sleep",
         quantum_ns: nil,
         overshoot_ns: 61_554,
         floor_ns: 1_052_301,
         costs: [%{request_ms: 1, mean_ns: 1_098_112}, ...]
       }}

    * `:sleep` - what was timed: `:os`, `:process_sleep`, or `:given` for a function.
    * `:primitive` - with `sleep: :os`, the OS call the program timed (`Win32 Sleep()` on
      Windows, the call behind Cheat Engine's and C#'s sleeps); nil otherwise.
    * `:quantum_ns` - the tick every sleep is a whole number of, or nil.
    * `:overshoot_ns` - when not quantised, the median of what each request cost past
      what it asked; nil when quantised.
    * `:floor_ns` - the least any one sleep cost.
    * `:costs` - each request's mean cost.

  ## Options

    * `:sleep` - `:os` (default) has the program time the operating system's plain sleep
      (`punctual::quantum::probe`) on a thread of its own, so that its wakes go on being
      served meanwhile; `:process_sleep` times the BEAM's `Process.sleep/1`, what a
      program that does not use this package sleeps with; a function taking milliseconds
      times that function. Those two are timed in the calling process on
      `System.monotonic_time(:nanosecond)`, and the program gives the verdict on their
      costs.
    * `:samples` - sleeps timed per request, 1 to 1,000 (default 5), each after one
      untimed: the probe takes about `(samples + 1) * 99 ms` and more.
    * `:clock` - with a `:sleep` timed in the BEAM, the clock to time it on: a function of
      no arguments returning nanoseconds (default `System.monotonic_time(:nanosecond)`).
      A sleep that keeps its own time (an emulator's, a test's) is timed on that time.

  `{:error, {:invalid, name, value}}` for a bad option, before anything is timed;
  `{:error, :probe_busy}` while another `sleep: :os` probe runs in the same program;
  `{:error, :closed}` when the program ends; `{:error, :unsupported}` with protocol 1 and
  from a program older than the probe. What a `:sleep` function raises is raised.
  """
  @spec probe(t, keyword) :: {:ok, map} | {:error, term}
  def probe(%__MODULE__{} = sleeper, opts \\ []) do
    with {:ok, o} <- Punctual.Probe.options(opts),
         :ok <- Punctual.Probe.clock_fits(o),
         # Before anything is timed: protocol 1 cannot give the verdict.
         :ok <- if(sleeper.protocol == 2, do: :ok, else: {:error, :unsupported}),
         {:ok, verdict} <- ask_port(sleeper, Punctual.Probe.question(o)) do
      {:ok, Map.put(verdict, :sleep, Punctual.Probe.timed(o))}
    end
  end

  @doc """
  The cheat sheet of a sleep quantum (`punctual::quantum::cheat_sheet`, asked of the
  program): for each band `k` of `bands`, the whole-millisecond request in its middle
  (`round(q * k - q / 2)`), the safest from the jitter at a tick edge, what it costs (`k`
  quanta) and how many such sleeps fit in a second.

      iex> {:ok, sleeper} = Punctual.open(realtime: false)
      iex> {:ok, sheet} = Punctual.cheat_sheet(sleeper, 15_625_000, 3)
      iex> Enum.map(sheet, & &1.request_ms)
      [8, 23, 39]
      iex> hd(sheet)
      %{k: 1, request_ms: 8, cost_ns: 15_625_000, rate_hz: 64.0}

  `quantum_ns` is a positive integer (a probe's `:quantum_ns`), `bands` 1 to 1,000
  (default 10); fewer bands come back where their numbers would overflow.
  `{:error, {:invalid, name, value}}`, `{:error, :closed}`, `{:error, :unsupported}` as
  for `probe/2`.
  """
  @spec cheat_sheet(t, pos_integer, pos_integer) :: {:ok, [map]} | {:error, term}
  def cheat_sheet(%__MODULE__{} = sleeper, quantum_ns, bands \\ 10) do
    with {:ok, %{quantum_ns: q, bands: n}} <-
           Options.check([quantum_ns: quantum_ns, bands: bands], @cheat_sheet) do
      ask_port(sleeper, {:cheat_sheet, q, n})
    end
  end

  # A question the program always answers (or ends): no timeout.
  defp ask_port(sleeper, question) do
    case await(sleeper, question, :infinity) do
      # A program from before the probe does not know the request.
      {:error, :unknown_kind} -> {:error, :unsupported}
      answer -> answer
    end
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

  # Registers a wake, then asks the program for it. A value the wire cannot carry is an
  # error before anything is registered or sent.
  defp ask(sleeper, destination, kind, how) do
    id = :atomics.add_get(sleeper.counters, @ids, 1)
    asked = with {:after, ns, _} <- how, do: ns, else: (_ -> nil)

    with {:ok, request} <- Request.encode(sleeper, id, how) do
      if register(sleeper, {id, destination, kind, asked}) and deliver(sleeper, request) do
        {:ok, id}
      else
        take(sleeper, id)
        {:error, :closed}
      end
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

  # Blocks for one wake, until `give_up_at` (ns on the BEAM's clock, or :infinity). The
  # answer comes to an alias of a monitor on the server: the monitor reports the server's
  # end, and once the alias is gone (demonitor), a late answer is dropped instead of
  # landing in the mailbox.
  defp await(sleeper, how, give_up_at) do
    alias = :erlang.monitor(:process, sleeper.server, [{:alias, :demonitor}])

    case ask(sleeper, alias, :reply, how) do
      {:ok, id} ->
        case answer(alias, give_up_at) do
          :timeout ->
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

          {:closed, answer} ->
            answer

          answer ->
            :erlang.demonitor(alias, [:flush])
            answer
        end

      error ->
        :erlang.demonitor(alias, [:flush])
        error
    end
  end

  defp answer(alias, give_up_at) do
    receive do
      {^alias, {:woke, lateness, slept}} -> {:ok, lateness, slept}
      {^alias, {:value, value}} -> {:ok, value}
      {^alias, {:error, reason}} -> {:error, reason}
      {:DOWN, ^alias, :process, _, _} -> {:closed, {:error, :closed}}
    after
      Timeout.step_ms(give_up_at) ->
        if Timeout.passed?(give_up_at), do: :timeout, else: answer(alias, give_up_at)
    end
  end
end
