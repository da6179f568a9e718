defmodule Punctual.BadInputTest do
  # Values at and past the wire's ranges, bad timeouts and options, and protocol 1's
  # cancel: every bad value is an error before anything is sent, every blocking call
  # returns by its timeout without spinning, and no call leaves a message behind.
  use ExUnit.Case, async: true

  @i64_max 0x7FFF_FFFF_FFFF_FFFF
  @i64_min -0x8000_0000_0000_0000
  # What a call may cost its process while it waits, far above what waiting costs and far
  # below what spinning does: here a 300 ms timeout blocked in `receive` ran 654
  # reductions, `spin_until/1` 1,547,127 in 100 ms.
  @idle_reductions 100_000

  for protocol <- [1, 2] do
    describe "protocol #{protocol}" do
      setup do
        {:ok, sleeper} = Punctual.open(protocol: unquote(protocol), realtime: false)
        %{sleeper: sleeper}
      end

      test "a deadline at the end of the clock: refused up front, or the timeout, not a spin",
           %{sleeper: sleeper} do
        outcome = blocking(fn -> Punctual.sleep_until(sleeper, @i64_max, timeout: 300) end)

        # Whether the wire carries it depends on where the port's clock stands from the
        # BEAM's; either answer is right, an early {:ok, _} never is.
        case outcome.result do
          {:error, {:invalid, :deadline, @i64_max}} -> :ok
          {:error, :timeout} -> assert outcome.elapsed_ms >= 300
        end

        assert outcome.reductions < @idle_reductions
        assert outcome.left == []

        case Punctual.wake_at(sleeper, @i64_max) do
          {:error, {:invalid, :deadline, @i64_max}} -> :ok
          {:ok, _id} -> refute_receive _, 300
        end
      end

      test "a deadline no clock reaches is refused before anything is sent", %{sleeper: sleeper} do
        for deadline <- [@i64_max + 1, 2 ** 64 + 1_000, @i64_min - 1] do
          outcome = blocking(fn -> Punctual.sleep_until(sleeper, deadline, timeout: 300) end)
          assert outcome.result == {:error, {:invalid, :deadline, deadline}}
          assert outcome.left == []
          assert Punctual.wake_at(sleeper, deadline) == {:error, {:invalid, :deadline, deadline}}
        end

        now = System.monotonic_time(:nanosecond)

        assert Punctual.wake_at(sleeper, now, spin: 2 ** 64) ==
                 {:error, {:invalid, :spin, 2 ** 64}}

        assert Punctual.sleep_until(sleeper, :soon) == {:error, {:invalid, :deadline, :soon}}
        refute_receive _, 100
        assert {:ok, _} = Punctual.sleep(sleeper, 1_000, 5_000)
      end

      test "a deadline past the timeout times out at the timeout, without spinning", %{
        sleeper: sleeper
      } do
        deadline = System.monotonic_time(:nanosecond) + 10_000_000_000

        # The port answers 200 ms in, for the spin; the rest is past the timeout.
        outcome =
          blocking(fn ->
            Punctual.sleep_until(sleeper, deadline, spin: 9_800_000_000, timeout: 300)
          end)

        assert outcome.result == {:error, :timeout}
        assert outcome.elapsed_ms >= 300
        assert outcome.reductions < @idle_reductions
        assert outcome.left == []
      end

      test "a spin inside the timeout still waits out its deadline", %{sleeper: sleeper} do
        deadline = System.monotonic_time(:nanosecond) + 2_000_000

        assert {:ok, late} =
                 Punctual.sleep_until(sleeper, deadline, spin: 1_000_000, timeout: 5_000)

        assert late >= 0
        assert System.monotonic_time(:nanosecond) >= deadline
      end

      test "durations past the wire's range are refused before anything is sent", %{
        sleeper: sleeper
      } do
        for ns <- [2 ** 64 + 1_000, @i64_max + 1, @i64_min - 1, 1.5, nil] do
          assert Punctual.sleep(sleeper, ns, 1_000) == {:error, {:invalid, :nanoseconds, ns}}
          assert Punctual.wake_after(sleeper, ns) == {:error, {:invalid, :nanoseconds, ns}}
        end

        # A truncated request would have answered by now.
        refute_receive _, 100
        assert {:ok, slept} = Punctual.sleep(sleeper, 1_000, 5_000)
        assert slept >= 1_000

        # The wire's least duration is carried, and answered at once.
        assert {:ok, id} = Punctual.wake_after(sleeper, @i64_min)
        assert_receive message, 5_000
        assert {:woke, ^id, _lateness} = Punctual.message(sleeper, message)
      end

      test "a bad timeout is refused before the request goes out", %{sleeper: sleeper} do
        deadline = System.monotonic_time(:nanosecond) + 1_000

        for timeout <- [-1, 1.5, :never] do
          assert Punctual.sleep(sleeper, 1_000, timeout) ==
                   {:error, {:invalid, :timeout, timeout}}

          assert Punctual.sleep_until(sleeper, deadline, timeout: timeout) ==
                   {:error, {:invalid, :timeout, timeout}}
        end

        # The answers to those requests would have come by now.
        refute_receive _, 100
        # Past what one `receive ... after` takes (2^32 - 1 ms).
        assert {:ok, _} = Punctual.sleep(sleeper, 1_000, 2 ** 40)
        refute_received _
      end

      test "a call's options are checked", %{sleeper: sleeper} do
        deadline = System.monotonic_time(:nanosecond) + 1_000_000

        assert Punctual.sleep_until(sleeper, deadline, timout: 5) ==
                 {:error, {:invalid, :timout, 5}}

        assert Punctual.sleep_until(sleeper, deadline, spin: -1) ==
                 {:error, {:invalid, :spin, -1}}

        assert Punctual.sleep_until(sleeper, deadline, :fast) ==
                 {:error, {:invalid, :options, :fast}}

        assert Punctual.wake_after(sleeper, 1_000, spin: 5) == {:error, {:invalid, :spin, 5}}

        assert Punctual.wake_at(sleeper, deadline, timeout: 5) ==
                 {:error, {:invalid, :timeout, 5}}

        assert Punctual.cancel(sleeper, "1") == {:error, {:invalid, :id, "1"}}
        refute_receive _, 100
      end
    end
  end

  test "open/1 and start_link/1 name the option they cannot take" do
    {:links, links} = Process.info(self(), :links)

    for {opts, key, value} <- [
          {[foo: 1], :foo, 1},
          {[realtime: false, priorty: 10], :priorty, 10},
          {[realtime: :no], :realtime, :no},
          {[protocol: 3], :protocol, 3},
          {[protocol: "2"], :protocol, "2"},
          {[priority: 0], :priority, 0},
          {[priority: 100], :priority, 100},
          {[realtime: false, priority: 5], :priority, 5},
          {[protocol: 2, strategy: :hybrid], :strategy, :hybrid},
          {[protocol: 1, strategy: :fast], :strategy, :fast},
          {[protocol: 1, strategy: :spin, port_spin: 1_000], :port_spin, 1_000},
          {[protocol: 1, max_pending: 5], :max_pending, 5},
          {[port_spin: -1], :port_spin, -1},
          {[port_spin: 2 ** 64], :port_spin, 2 ** 64},
          {[max_pending: 0], :max_pending, 0},
          {[path: 5], :path, 5},
          {[name: PunctualTest.Open], :name, PunctualTest.Open}
        ] do
      assert Punctual.open(opts) == {:error, {:invalid, key, value}}
    end

    assert Punctual.open(:fast) == {:error, {:invalid, :options, :fast}}
    assert Punctual.start_link(foo: 1) == {:error, {:invalid, :foo, 1}}
    assert Punctual.start_link(name: "shared") == {:error, {:invalid, :name, "shared"}}
    # Nothing was started.
    assert Process.info(self(), :links) == {:links, links}
    refute_receive _, 100
  end

  test "the options open/1 takes still open" do
    {:ok, sleeper} = Punctual.open(protocol: 1, strategy: :hybrid, realtime: false)
    assert {:ok, _} = Punctual.sleep(sleeper, 1_000, 5_000)
    {:ok, sleeper} = Punctual.open(port_spin: 1_000, max_pending: 10, priority: nil)
    assert {:ok, _} = Punctual.sleep(sleeper, 1_000, 5_000)
  end

  test "protocol 1 cannot cancel, and says so: the wake still comes" do
    {:ok, sleeper} = Punctual.open(protocol: 1, realtime: false)
    {:ok, id} = Punctual.wake_after(sleeper, 100_000_000)
    assert Punctual.cancel(sleeper, id) == {:error, :unsupported}
    assert_receive message, 5_000
    assert {:woke, ^id, _lateness} = Punctual.message(sleeper, message)
    # The port is free again.
    assert {:ok, _} = Punctual.sleep(sleeper, 1_000, 5_000)
    assert Punctual.wake_after(sleeper, 1_000, port_spin: 1_000) == {:error, :unsupported}
    refute_receive _, 100
  end

  # Runs a blocking call in a process of its own: what it returned, how long it took, the
  # reductions it ran and what it left in its mailbox (looked at once any answer to a
  # request it made would have come). Fails when the call has not returned in 5 s.
  defp blocking(call) do
    task =
      Task.async(fn ->
        started = System.monotonic_time(:millisecond)
        {:reductions, before} = Process.info(self(), :reductions)
        result = call.()
        {:reductions, after_call} = Process.info(self(), :reductions)
        elapsed_ms = System.monotonic_time(:millisecond) - started
        Process.sleep(100)
        {:messages, left} = Process.info(self(), :messages)
        %{result: result, elapsed_ms: elapsed_ms, reductions: after_call - before, left: left}
      end)

    case Task.yield(task, 5_000) || Task.shutdown(task, :brutal_kill) do
      {:ok, outcome} -> outcome
      nil -> flunk("the call had not returned after 5 s")
    end
  end
end
