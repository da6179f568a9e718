defmodule Punctual.TimerInfoTest do
  # timer_info/2: the port's account of its timer thread's timer, asked through TIMER_INFO.
  use ExUnit.Case, async: true

  test "describes the timer the port's wakes wait on" do
    {:ok, sleeper} = Punctual.open(realtime: false)
    assert {:ok, timer} = Punctual.timer_info(sleeper)

    assert %{
             mechanism: mechanism,
             high_resolution: high_resolution,
             resolution_ns: resolution_ns,
             timer_slack_ns: slack_ns,
             degraded: degraded
           } = timer

    assert is_binary(mechanism) and mechanism != ""
    assert is_boolean(high_resolution)
    assert resolution_ns == nil or (is_integer(resolution_ns) and resolution_ns > 0)
    assert degraded == nil or is_binary(degraded)

    if :os.type() == {:unix, :linux} do
      assert mechanism =~ "futex"
      # Not real-time here: the slack the program set on its timer thread.
      assert slack_ns == 1
    else
      assert slack_ns == nil
    end

    # Asked among wakes, it leaves them be.
    {:ok, id} = Punctual.wake_after(sleeper, 1_000)
    assert {:ok, ^timer} = Punctual.timer_info(sleeper)
    assert_receive message, 5_000
    assert {:woke, ^id, _lateness} = Punctual.message(sleeper, message)
  end

  test "is unsupported by protocol 1, and fails as a call does" do
    {:ok, sleeper} = Punctual.open(protocol: 1, realtime: false)
    assert Punctual.timer_info(sleeper) == {:error, :unsupported}

    {:ok, sleeper} = Punctual.open(realtime: false)

    for t <- [-1, 1.5, :soon],
        do: assert(Punctual.timer_info(sleeper, t) == {:error, {:invalid, :timeout, t}})

    assert {:ok, _} = Punctual.timer_info(sleeper, 2 ** 64)
    Punctual.close(sleeper)
    assert Punctual.timer_info(sleeper) == {:error, :closed}
    assert Process.info(self(), :messages) == {:messages, []}
  end
end
