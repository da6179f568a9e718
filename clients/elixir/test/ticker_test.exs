defmodule Punctual.TickerTest do
  # The grid's arithmetic (pure, as crates/punctual/tests/ticker.rs checks the library's),
  # then tickers on the port: never early, exact deadlines, the policies, bad input.
  use ExUnit.Case, async: true

  alias Punctual.{Grid, Tick}

  @slack 1_000_000_000

  defp now, do: System.monotonic_time(:nanosecond)

  describe "the grid" do
    test "deadlines are exact multiples of the period, however far" do
      first = -576_460_751_999_123_457

      for period <- [1, 333, 1_000_001, 16_666_667, 999_999_999, 1_000_000_007],
          k <- [0, 1, 2, 3, 999_999, 1_000_000, 123_456_789, 10_000_000_000, 2 ** 70] do
        assert Grid.deadline_of(Grid.new(first, period, :skip), k) - first == period * k
      end
    end

    test "a hundred thousand ticks carry no drift" do
      period = 333
      first = 0
      ticks = 100_000
      # Every tick overdue: burst fires them one by one, each read `now` past them all.
      late = first + period * (ticks + 10)

      grid =
        Enum.reduce(0..(ticks - 1), Grid.new(first, period, :burst), fn k, grid ->
          due = Grid.due(grid, late)
          assert {due.index, due.missed, due.deadline} == {k, 0, first + period * k}
          Grid.advance(grid, due, late)
        end)

      assert grid.next == ticks and grid.missed == 0
      assert Grid.deadline_of(grid, ticks) == first + period * ticks
    end

    test "skip drops the grid points past and waits for the first ahead" do
      period = 20_000_000
      first = 1_000_000_000
      now = first + 10 * period + div(period, 2)
      due = Grid.due(Grid.new(first, period, :skip), now)
      assert {due.index, due.missed, due.deadline} == {11, 11, first + 11 * period}
      assert due.deadline > now and due.deadline - period <= now

      # On a grid point exactly: not overdue, by no tolerance either way.
      assert Grid.due(Grid.new(first, period, :skip), first).missed == 0
      assert Grid.due(Grid.new(first, period, :skip), first + 1).index == 1
    end

    test "burst fires every overdue tick, delay fires one and moves the grid" do
      period = 2_000_000
      first = 0
      now = first + 3 * period + div(period, 2)

      burst = Grid.new(first, period, :burst)
      due = Grid.due(burst, now)
      assert {due.index, due.missed, due.deadline} == {0, 0, first}
      due = Grid.due(Grid.advance(burst, due, now), now)
      assert {due.index, due.missed, due.deadline} == {1, 0, first + period}

      delay = Grid.new(first, period, :delay)
      due = Grid.due(delay, now)
      assert {due.index, due.missed, due.deadline} == {0, 3, first}
      delay = Grid.advance(delay, due, now)
      assert delay.missed == 3
      assert Grid.deadline_of(delay, 1) == now + period
      assert Grid.deadline_of(delay, 5) == now + 5 * period
    end
  end

  for protocol <- [1, 2] do
    describe "a ticker, protocol #{protocol}" do
      setup do
        {:ok, sleeper} = Punctual.open(protocol: unquote(protocol), realtime: false)
        %{sleeper: sleeper}
      end

      test "ticks are never early and on the grid, skip's index moving by what it missed",
           %{sleeper: sleeper} do
        period = 1_000_000
        first = now() + period
        {:ok, ticker} = Punctual.ticker(sleeper, period, first: first)

        Enum.reduce(1..200, {ticker, 0}, fn _, {ticker, expected} ->
          assert {:tick, %Tick{} = tick, ticker} = Punctual.await_tick(ticker, 5_000)
          assert now() >= tick.deadline
          assert tick.lateness_ns >= 0 and tick.lateness_ns < @slack
          assert tick.deadline == first + tick.index * period
          assert tick.index == expected + tick.missed
          {ticker, tick.index + 1}
        end)
      end

      test "ticks come as messages for tick/2, other messages are :other", %{sleeper: sleeper} do
        {:ok, ticker} = Punctual.ticker(sleeper, 2_000_000, spin: 500_000)
        assert Punctual.tick(ticker, :something_else) == :other
        assert_receive message, 5_000
        assert {:tick, tick, ticker} = Punctual.tick(ticker, message)
        assert tick.index == 0 and now() >= tick.deadline
        # The same message again is not the new ticker's.
        assert Punctual.tick(ticker, message) == :other
        assert_receive message, 5_000
        assert {:tick, next, _ticker} = Punctual.tick(ticker, message)
        assert next.index == 1 + next.missed and now() >= next.deadline
      end

      test "burst fires the overdue ticks at once, in order", %{sleeper: sleeper} do
        period = 200_000_000
        first = now() - 5 * period
        {:ok, ticker} = Punctual.ticker(sleeper, period, first: first, policy: :burst)

        Enum.reduce(0..4, {ticker, nil}, fn k, {ticker, last_lateness} ->
          assert {:tick, tick, ticker} = Punctual.await_tick(ticker, 5_000)
          assert {tick.index, tick.missed, tick.deadline} == {k, 0, first + k * period}
          if last_lateness, do: assert(tick.lateness_ns < last_lateness)
          {ticker, tick.lateness_ns}
        end)
      end

      test "delay fires the overdue tick and re-anchors the grid on it", %{sleeper: sleeper} do
        period = 2_000_000
        first = now() - 3 * period - div(period, 2)
        {:ok, ticker} = Punctual.ticker(sleeper, period, first: first, policy: :delay)
        assert {:tick, late, ticker} = Punctual.await_tick(ticker, 5_000)
        assert late.index == 0 and late.missed >= 3 and late.deadline == first
        woke = late.deadline + late.lateness_ns
        # Delay never skips: tick 1 is due a period after tick 0 fired, however late.
        assert {:tick, next, _ticker} = Punctual.await_tick(ticker, 5_000)
        assert next.index == 1 and next.deadline == woke + period
        assert now() >= next.deadline
      end

      test "a stopped ticker sends nothing more", %{sleeper: sleeper} do
        {:ok, ticker} = Punctual.ticker(sleeper, 1_000_000)
        assert Punctual.stop_ticker(ticker) == :ok
        assert Punctual.stop_ticker(ticker) == :ok
        # One whose wake has already fired: its message is taken out of the mailbox.
        {:ok, ticker} = Punctual.ticker(sleeper, 1_000, first: now())
        Process.sleep(20)
        assert Punctual.stop_ticker(ticker) == :ok
        Process.sleep(20)
        assert Process.info(self(), :messages) == {:messages, []}
      end
    end
  end

  describe "bad input" do
    setup do
      {:ok, sleeper} = Punctual.open(realtime: false)
      %{sleeper: sleeper}
    end

    test "is an error before anything is asked", %{sleeper: sleeper} do
      for period <- [0, -1, 1.5, :fast, 2 ** 63 - 1, 2 ** 64] do
        assert Punctual.ticker(sleeper, period) == {:error, {:invalid, :period, period}}
      end

      assert Punctual.ticker(sleeper, 1_000, first: "now") ==
               {:error, {:invalid, :first, "now"}}

      assert Punctual.ticker(sleeper, 1_000, first: 2 ** 64) ==
               {:error, {:invalid, :first, 2 ** 64}}

      assert Punctual.ticker(sleeper, 1_000, policy: :sometimes) ==
               {:error, {:invalid, :policy, :sometimes}}

      assert Punctual.ticker(sleeper, 1_000, spin: -1) == {:error, {:invalid, :spin, -1}}
      assert Punctual.ticker(sleeper, 1_000, perod: 5) == {:error, {:invalid, :perod, 5}}
      assert Punctual.ticker(sleeper, 1_000, :skip) == {:error, {:invalid, :options, :skip}}
      Process.sleep(20)
      assert Process.info(self(), :messages) == {:messages, []}
    end

    test "a grid that runs past what the wire carries stops with its last tick",
         %{sleeper: sleeper} do
      # Burst, so that tick 0 fires however late the ticker starts, and tick 1 is asked.
      period = 2 ** 63 - 1
      {:ok, ticker} = Punctual.ticker(sleeper, period, first: now(), policy: :burst)

      assert {:stopped, %Tick{index: 0}, {:invalid, :deadline, deadline}} =
               Punctual.await_tick(ticker, 5_000)

      assert deadline > now()
    end

    test "await_tick takes a timeout, and says when the ticker has stopped",
         %{sleeper: sleeper} do
      {:ok, ticker} = Punctual.ticker(sleeper, 10_000_000_000)
      assert Punctual.await_tick(ticker, 5) == {:error, :timeout}
      assert Punctual.await_tick(ticker, -1) == {:error, {:invalid, :timeout, -1}}
      :ok = Punctual.stop_ticker(ticker)

      {:ok, ticker} = Punctual.ticker(sleeper, 2 ** 63 - 1, first: now(), policy: :burst)
      {:stopped, _tick, _reason} = Punctual.await_tick(ticker, 5_000)
    end

    test "a program that ends ends the ticker", %{sleeper: sleeper} do
      {:ok, ticker} = Punctual.ticker(sleeper, 10_000_000_000)
      Punctual.close(sleeper)
      assert {:closed, :closed} = Punctual.await_tick(ticker, 5_000)
    end
  end
end
