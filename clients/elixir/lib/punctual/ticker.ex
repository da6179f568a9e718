defmodule Punctual.Ticker do
  @moduledoc false
  # `Punctual.ticker/3` and its friends: a `Punctual.Grid` waited on with the port's
  # wakes, one pending at a time. Each tick is a `wake_at/3` for the grid point the policy
  # names; when its message is handed to `tick/2`, the tick fires (after a spin to its
  # deadline, should the answer beat the BEAM's clock, so that no tick is early), the grid
  # advances with that clock reading, and the next wake is asked, from the same reading.
  #
  # So a tick's lateness is counted to the moment its message was handled, and a
  # consumer whose work overruns a period shows it in the lateness of the next tick; the
  # policy then decides the one after, as `Grid.due/2` does for the blocking tickers of
  # the other clients.

  alias Punctual.{Grid, Options, Tick, Timeout}

  defstruct [:sleeper, :grid, :due, :id, :spin, :port_spin]

  @typedoc "A ticker: its grid, and the wake pending for its next tick."
  @opaque t :: %__MODULE__{}

  @options Options.spec(%{
             first: {nil, :integer},
             policy: {:skip, :policy},
             spin: {0, :non_neg},
             port_spin: {0, :u32}
           })

  def start(%Punctual{} = sleeper, period, opts) do
    with :ok <- period(period),
         {:ok, o} <- Options.check(opts, @options) do
      now = now()
      grid = Grid.new(o.first || now + period, period, o.policy)
      ticker = %__MODULE__{sleeper: sleeper, grid: grid, spin: o.spin, port_spin: o.port_spin}

      case ask(ticker, now) do
        {:ok, ticker} ->
          {:ok, ticker}

        # The first grid point the wire cannot carry: the period's doing, or the first's.
        {:error, {:invalid, :deadline, _}} ->
          if o.first != nil and Grid.due(grid, now).index == 0,
            do: Options.invalid(:first, o.first),
            else: Options.invalid(:period, period)

        error ->
          error
      end
    end
  end

  defp period(period) when is_integer(period) and period > 0, do: :ok
  defp period(period), do: Options.invalid(:period, period)

  def tick(
        %__MODULE__{id: id, sleeper: %Punctual{server: server}} = ticker,
        {:punctual, server, {:woke, id, _port_lateness}}
      ) do
    deadline = ticker.due.deadline
    Punctual.spin_until(deadline)
    woke = now()

    tick = %Tick{
      index: ticker.due.index,
      deadline: deadline,
      lateness_ns: woke - deadline,
      missed: ticker.due.missed
    }

    ticker = %{ticker | grid: Grid.advance(ticker.grid, ticker.due, woke), due: nil, id: nil}

    case ask(ticker, woke) do
      {:ok, ticker} -> {:tick, tick, ticker}
      {:error, reason} -> {:stopped, tick, reason}
    end
  end

  def tick(
        %__MODULE__{id: id, sleeper: %Punctual{server: server}},
        {:punctual, server, {:error, id, reason}}
      ),
      do: {:error, reason}

  def tick(
        %__MODULE__{id: id, sleeper: %Punctual{server: server}},
        {:punctual, server, {:closed, _reason} = closed}
      )
      when id != nil,
      do: closed

  def tick(%__MODULE__{id: id, sleeper: %Punctual{server: server}}, {:EXIT, server, reason})
      when id != nil,
      do: {:closed, reason}

  def tick(%__MODULE__{}, _message), do: :other

  def await(%__MODULE__{id: nil}, _timeout), do: {:error, :stopped}

  def await(%__MODULE__{} = ticker, timeout) do
    if Options.timeout?(timeout),
      do: receive_tick(ticker, Timeout.give_up_at(timeout)),
      else: Options.invalid(:timeout, timeout)
  end

  defp receive_tick(%__MODULE__{id: id, sleeper: %Punctual{server: server}} = ticker, give_up_at) do
    receive do
      {:punctual, ^server, {:woke, ^id, _}} = message -> tick(ticker, message)
      {:punctual, ^server, {:error, ^id, _}} = message -> tick(ticker, message)
      {:punctual, ^server, {:closed, _}} = message -> tick(ticker, message)
    after
      Timeout.step_ms(give_up_at) ->
        if Timeout.passed?(give_up_at),
          do: {:error, :timeout},
          else: receive_tick(ticker, give_up_at)
    end
  end

  # Takes the pending wake back; once it returns, no message of this ticker comes.
  def stop(%__MODULE__{id: nil}), do: :ok

  def stop(%__MODULE__{id: id, sleeper: %Punctual{server: server} = sleeper}) do
    unless Punctual.withdraw(sleeper, id) do
      # The server took the entry first, and sends its message in the same callback: once
      # a call to it returns, that message is in the mailbox (or was handled already).
      try do
        Punctual.handle(server)
      catch
        :exit, _ -> :ok
      end

      receive do
        {:punctual, ^server, {:woke, ^id, _}} -> :ok
        {:punctual, ^server, {:error, ^id, _}} -> :ok
      after
        0 -> :ok
      end
    end

    :ok
  end

  defp ask(%__MODULE__{grid: grid} = ticker, now) do
    due = Grid.due(grid, now)
    opts = [spin: ticker.spin, port_spin: ticker.port_spin]

    with {:ok, id} <- Punctual.wake_at(ticker.sleeper, due.deadline, opts) do
      {:ok, %{ticker | due: due, id: id}}
    end
  end

  defp now, do: System.monotonic_time(:nanosecond)
end
