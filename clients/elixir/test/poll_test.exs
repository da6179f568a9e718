defmodule Punctual.PollTest do
  # poll_until/3: what it returns and when, never how punctually.
  use ExUnit.Case, async: true

  setup do
    {:ok, sleeper} = Punctual.open(realtime: false)
    %{sleeper: sleeper}
  end

  defp now, do: System.monotonic_time(:nanosecond)

  # A condition met on its `n`th call, counting its calls in the process dictionary.
  defp met_on(n, value) do
    Process.put(:calls, 0)

    fn ->
      calls = Process.put(:calls, Process.get(:calls) + 1) + 1
      if calls >= n, do: value
    end
  end

  test "returns the condition's value once met, the hook run before every sleep",
       %{sleeper: sleeper} do
    Process.put(:hooks, 0)
    hook = fn -> Process.put(:hooks, Process.get(:hooks) + 1) end

    started = now()

    assert Punctual.poll_until(sleeper, met_on(4, :ready),
             timeout: 5_000,
             step: 1_000_000,
             before_sleep: hook
           ) == {:ok, :ready}

    assert Process.get(:calls) == 4
    assert Process.get(:hooks) == 3
    assert now() - started >= 3 * 1_000_000

    assert Punctual.poll_until(sleeper, met_on(2, {:ok, 42}), timeout: 5_000) == {:ok, 42}
    assert Punctual.poll_until(sleeper, fn -> true end, timeout: :infinity) == {:ok, true}
  end

  test "the condition's own error ends it at once", %{sleeper: sleeper} do
    assert Punctual.poll_until(sleeper, met_on(2, {:error, :wedged}), timeout: 5_000) ==
             {:error, :wedged}

    assert Process.get(:calls) == 2

    assert_raise RuntimeError, "boom", fn ->
      Punctual.poll_until(sleeper, fn -> raise "boom" end, timeout: 5_000)
    end
  end

  test "a timeout comes at the deadline, after one last check there", %{sleeper: sleeper} do
    started = now()
    Process.put(:calls, 0)
    never = fn -> Process.put(:calls, Process.get(:calls) + 1) && nil end

    assert {:error, {:timeout, elapsed_ns, polls}} =
             Punctual.poll_until(sleeper, never, timeout: 200, step: 10_000_000_000)

    # The long step was cut to end at the deadline, and checked there once more.
    assert polls == 2 and Process.get(:calls) == 2
    assert elapsed_ns >= 200_000_000
    assert now() - started >= 200_000_000

    deadline = now() + 5_000_000

    assert {:error, {:timeout, _elapsed_ns, polls}} =
             Punctual.poll_until(sleeper, fn -> false end, deadline: deadline, step: 1_000_000)

    assert polls >= 2
    assert now() >= deadline

    # A deadline already past: one check, then the timeout.
    assert {:error, {:timeout, _, 1}} =
             Punctual.poll_until(sleeper, fn -> nil end, deadline: now() - 1)

    assert {:error, {:timeout, _, polls}} =
             Punctual.poll_until(sleeper, fn -> nil end, timeout: 2, step: 0)

    assert polls >= 2
  end

  test "bad input is an error before the condition is called", %{sleeper: sleeper} do
    Process.put(:calls, 0)
    counted = fn -> Process.put(:calls, Process.get(:calls) + 1) && true end

    for {opts, name, value} <- [
          {[timeout: -1], :timeout, -1},
          {[timeout: 1.5], :timeout, 1.5},
          {[timeout: 10, deadline: now()], :deadline, :_},
          {[deadline: "soon"], :deadline, "soon"},
          {[timeout: 10, step: -1], :step, -1},
          {[timeout: 10, step: "1ms"], :step, "1ms"},
          {[timeout: 10, before_sleep: :kick], :before_sleep, :kick},
          {[timeout: 10, before_sleep: fn _ -> :ok end], :before_sleep, :_},
          {[timeout: 10, tiemout: 5], :tiemout, 5}
        ] do
      assert {:error, {:invalid, ^name, got}} = Punctual.poll_until(sleeper, counted, opts)
      if value != :_, do: assert(got == value)
    end

    assert Punctual.poll_until(sleeper, :ready?, timeout: 10) ==
             {:error, {:invalid, :condition, :ready?}}

    assert {:error, {:invalid, :condition, _}} =
             Punctual.poll_until(sleeper, fn x -> x end, timeout: 10)

    assert Punctual.poll_until(sleeper, counted, :fast) == {:error, {:invalid, :options, :fast}}
    assert Process.get(:calls) == 0
  end

  test "with neither timeout nor deadline there is none: it polls until the condition says",
       %{sleeper: sleeper} do
    started = now()
    assert Punctual.poll_until(sleeper, met_on(3, :ready)) == {:ok, :ready}
    assert Process.get(:calls) == 3
    # Two default steps of 1 ms between the three calls.
    assert now() - started >= 2 * 1_000_000

    assert Punctual.poll_until(sleeper, met_on(4, :ok), step: 0) == {:ok, :ok}
    assert Punctual.poll_until(sleeper, met_on(2, {:error, :wedged}), []) == {:error, :wedged}

    # No deadline is as `timeout: :infinity`: the options beside it are still checked.
    assert {:error, {:invalid, :step, -1}} =
             Punctual.poll_until(sleeper, fn -> true end, step: -1)
  end

  test "huge values neither crash nor hang", %{sleeper: sleeper} do
    assert Punctual.poll_until(sleeper, met_on(3, :ok), timeout: 2 ** 63 - 1) == {:ok, :ok}
    assert Punctual.poll_until(sleeper, met_on(2, :ok), deadline: 2 ** 64) == {:ok, :ok}

    assert {:error, {:timeout, _, 2}} =
             Punctual.poll_until(sleeper, fn -> nil end, timeout: 10, step: 2 ** 63 - 1)

    assert Punctual.poll_until(sleeper, fn -> nil end, timeout: :infinity, step: 2 ** 64) ==
             {:error, {:invalid, :step, 2 ** 64}}
  end

  test "a program that has ended is an error", %{sleeper: sleeper} do
    Punctual.close(sleeper)
    assert Punctual.poll_until(sleeper, fn -> nil end, timeout: 1_000) == {:error, :closed}
  end
end
