defmodule Punctual.NanosleepTest do
  # Punctual.Nanosleep against what nanosleep 0.3 documents: its README's and module doc's
  # examples as written there, with only the alias added, and the shapes its docs give.
  # What the client does, never how punctually: @slack is a broken sleep, not a slow one.
  use ExUnit.Case, async: true

  alias Punctual.Nanosleep

  doctest Punctual.Nanosleep

  @slack 1_000_000_000

  setup do
    {:ok, sleeper} = Nanosleep.open(realtime: false)
    %{sleeper: sleeper}
  end

  defp now, do: System.monotonic_time(:nanosecond)

  defp alive?(os_pid),
    do: match?({_, 0}, System.cmd("kill", ["-0", "#{os_pid}"], stderr_to_stdout: true))

  defp gone?(os_pid, tries \\ 100) do
    cond do
      not alive?(os_pid) -> true
      tries == 0 -> false
      true -> Process.sleep(10) && gone?(os_pid, tries - 1)
    end
  end

  test "the README's examples" do
    started = now()
    {:ok, sleeper} = Nanosleep.open()
    {:ok, slept} = Nanosleep.sleep(sleeper, 250_000)
    assert slept >= 250_000 and slept < @slack
    assert now() - started >= 250_000

    deadline = System.monotonic_time(:nanosecond) + 2_000_000
    {:ok, late} = Nanosleep.sleep_until(sleeper, deadline, spin: 250_000)
    assert late >= 0 and late < @slack
    assert now() >= deadline
  end

  # The README's `Nanosleep.open(priority: 41)`: kept where it is granted; where it is
  # refused, open still succeeds and the end comes as nanosleep's does, status 3, after
  # which the sleeper says it is closed.
  test "a priority asked for is kept, or ends the program with status 3" do
    if :os.type() == {:unix, :linux} do
      {:ok, sleeper} = Nanosleep.open(priority: 41)

      receive do
        message ->
          assert Nanosleep.message(sleeper, message) == {:closed, 3}
          assert Nanosleep.sleep(sleeper, 1_000) == {:error, :closed}
          assert Nanosleep.sleep_until(sleeper, now()) == {:error, :closed}
          assert Nanosleep.wake_after(sleeper, 1_000) == {:error, :closed}
          assert Nanosleep.wake_at(sleeper, now()) == {:error, :closed}
          assert Nanosleep.os_pid(sleeper) == nil
          assert Nanosleep.close(sleeper) == :ok
      after
        500 -> assert {:ok, _slept} = Nanosleep.sleep(sleeper, 1_000)
      end
    else
      assert_raise ArgumentError, ~r/SCHED_FIFO priority on Linux/, fn ->
        Nanosleep.open(priority: 41)
      end
    end
  end

  # The module doc's GenServer, its `handle_info/2` as nanosleep documents it.
  defmodule Waker do
    use GenServer

    def init({test, ns, count}) do
      {:ok, sleeper} = Nanosleep.open(realtime: false)
      :ok = Nanosleep.wake_after(sleeper, ns)
      {:ok, %{sleeper: sleeper, test: test, ns: ns, left: count, started: now()}}
    end

    def handle_info(message, %{sleeper: sleeper} = state) do
      case Nanosleep.message(sleeper, message) do
        {:woke, slept} ->
          send(state.test, {:slept, slept, now() - state.started})
          left = state.left - 1
          if left > 0, do: :ok = Nanosleep.wake_after(sleeper, state.ns)
          {:noreply, %{state | left: left, started: now()}}

        {:closed, status} ->
          send(state.test, {:closed, status})
          {:noreply, state}

        :other ->
          send(state.test, :other)
          {:noreply, state}
      end
    end

    defp now, do: System.monotonic_time(:nanosecond)
  end

  test "a GenServer reads its wakes with message/2" do
    {:ok, waker} = GenServer.start_link(Waker, {self(), 300_000, 5})

    for _ <- 1..5 do
      assert_receive {:slept, slept, elapsed}, 5_000
      assert slept >= 300_000 and slept < @slack
      assert elapsed >= 300_000
    end

    send(waker, :something_else)
    assert_receive :other, 5_000
    GenServer.stop(waker)
  end

  test "sleeps at least as long as asked; zero or less answers at once", %{sleeper: sleeper} do
    for ns <- [1, 1_000, 100_000, 1_000_000, 5_000_000] do
      started = now()
      assert {:ok, slept} = Nanosleep.sleep(sleeper, ns)
      assert slept >= ns and slept - ns < @slack
      assert now() - started >= ns
    end

    assert {:ok, slept} = Nanosleep.sleep(sleeper, 0)
    assert slept < @slack
    assert {:ok, slept} = Nanosleep.sleep(sleeper, -1_000_000_000)
    assert slept < @slack
  end

  test "one sleep at a time: wakes asked together answer one after another", %{
    sleeper: sleeper
  } do
    started = now()
    :ok = Nanosleep.wake_after(sleeper, 2_000_000)
    :ok = Nanosleep.wake_after(sleeper, 2_000_000)

    for _ <- 1..2 do
      assert_receive message, 5_000
      assert {:woke, slept} = Nanosleep.message(sleeper, message)
      assert slept >= 2_000_000
    end

    assert now() - started >= 4_000_000
  end

  test "wake_at with spin: answers early, and spin_until waits out the rest", %{
    sleeper: sleeper
  } do
    deadline = now() + 3_000_000
    assert :ok = Nanosleep.wake_at(sleeper, deadline, spin: 2_000_000)
    assert_receive message, 5_000
    assert {:woke, slept} = Nanosleep.message(sleeper, message)
    assert slept >= 0 and slept < @slack
    assert Nanosleep.spin_until(deadline) == :ok
    assert now() >= deadline

    # Options nanosleep does not know are ignored, as there.
    assert :ok = Nanosleep.wake_at(sleeper, now() + 1_000, spin: 0, other: 1)
    assert_receive message, 5_000
    assert {:woke, _slept} = Nanosleep.message(sleeper, message)
    assert Nanosleep.message(sleeper, :something_else) == :other
  end

  test "sleep_until never returns early, with or without spinning", %{sleeper: sleeper} do
    for spin <- [0, 250_000, 5_000_000] do
      deadline = now() + 1_000_000
      assert {:ok, late} = Nanosleep.sleep_until(sleeper, deadline, spin: spin)
      assert late >= 0 and late < @slack
      assert now() >= deadline
    end

    assert {:ok, _late} = Nanosleep.sleep_until(sleeper, now() - 1)
  end

  test "a sleep that times out leaves no answer for the next one", %{sleeper: sleeper} do
    assert Nanosleep.sleep(sleeper, 200_000_000, 5) == {:error, :timeout}
    far = now() + 10_000_000_000
    assert Nanosleep.sleep_until(sleeper, far, timeout: 5) == {:error, :timeout}
    # nanosleep's late answers would be in the mailbox by now, and the next sleep would
    # take the 200 ms one for its own.
    Process.sleep(250)
    assert Process.info(self(), :messages) == {:messages, []}
  end

  test "what nanosleep would truncate or raise on is an error, sent nowhere", %{
    sleeper: sleeper
  } do
    assert Nanosleep.sleep(sleeper, 2 ** 64 + 1_000) ==
             {:error, {:invalid, :nanoseconds, 2 ** 64 + 1_000}}

    assert Nanosleep.wake_after(sleeper, 1.5) == {:error, {:invalid, :nanoseconds, 1.5}}
    assert Nanosleep.wake_after(sleeper, -(2 ** 63) - 1) |> elem(0) == :error
    assert Nanosleep.wake_at(sleeper, "soon") == {:error, {:invalid, :deadline, "soon"}}
    assert Nanosleep.wake_at(sleeper, now(), spin: -1) == {:error, {:invalid, :spin, -1}}
    assert Nanosleep.sleep_until(sleeper, 2 ** 63 - 1) |> elem(0) == :error
    assert Nanosleep.sleep(sleeper, 1_000, -1) == {:error, {:invalid, :timeout, -1}}
    assert Nanosleep.spin_until(:later) == {:error, {:invalid, :deadline, :later}}
    Process.sleep(20)
    assert Process.info(self(), :messages) == {:messages, []}
    assert {:ok, _slept} = Nanosleep.sleep(sleeper, 1_000)
  end

  test "the longest sleep the wire carries times out, and closing ends it" do
    {:ok, sleeper} = Nanosleep.open(realtime: false)
    assert Nanosleep.sleep(sleeper, 2 ** 63 - 1, 10) == {:error, :timeout}
    assert Nanosleep.close(sleeper) == :ok
    assert Nanosleep.sleep(sleeper, 1) == {:error, :closed}
  end

  test "open checks priorities as nanosleep does" do
    assert_raise ArgumentError, ~r/from 1 to 99, got: 0/, fn -> Nanosleep.open(priority: 0) end

    assert_raise ArgumentError, ~r/from 1 to 99, got: 100/, fn ->
      Nanosleep.open(priority: 100)
    end

    assert_raise ArgumentError, ~r/from 1 to 99, got: "2"/, fn ->
      Nanosleep.open(priority: "2")
    end

    assert_raise ArgumentError, ~r/realtime: false turns off/, fn ->
      Nanosleep.open(realtime: false, priority: 2)
    end
  end

  @tag :unix
  test "closing ends the program, and a closed sleeper says so", %{sleeper: sleeper} do
    os_pid = Nanosleep.os_pid(sleeper)
    assert alive?(os_pid)
    assert Nanosleep.close(sleeper) == :ok
    assert gone?(os_pid)
    assert Nanosleep.close(sleeper) == :ok
    assert Nanosleep.wake_after(sleeper, 1) == {:error, :closed}
    assert Nanosleep.sleep_until(sleeper, now() + 1_000_000_000) == {:error, :closed}
    assert Nanosleep.os_pid(sleeper) == nil
  end

  @tag :unix
  test "the program ends with its owner" do
    test = self()

    owner =
      spawn(fn ->
        {:ok, sleeper} = Nanosleep.open(realtime: false)
        send(test, {:os_pid, Nanosleep.os_pid(sleeper)})
        receive do: (:stop -> :ok)
      end)

    assert_receive {:os_pid, os_pid}, 5_000
    send(owner, :stop)
    assert gone?(os_pid)
  end

  @tag :unix
  test "a killed program tells its owner {:closed, status}, which carries on", %{
    sleeper: sleeper
  } do
    System.cmd("kill", ["-9", "#{Nanosleep.os_pid(sleeper)}"])
    assert_receive message, 5_000
    assert {:closed, status} = Nanosleep.message(sleeper, message)
    assert status != 0
    # Told once it is too late to ask: nothing asked now is taken.
    assert Nanosleep.wake_after(sleeper, 1) == {:error, :closed}
    assert Nanosleep.sleep(sleeper, 1) == {:error, :closed}

    {:ok, again} = Nanosleep.open(realtime: false)
    assert {:ok, _slept} = Nanosleep.sleep(again, 1_000)
  end

  @tag :unix
  test "an owner that traps exits also reads the holder's end as {:closed, reason}" do
    Process.flag(:trap_exit, true)
    {:ok, sleeper} = Nanosleep.open(realtime: false)
    System.cmd("kill", ["-9", "#{Nanosleep.os_pid(sleeper)}"])
    # Trapping exits, the test also gets the end of System.cmd's own port: :other.
    assert {:closed, status} = next_event(sleeper)
    assert is_integer(status) and status != 0
    assert next_event(sleeper) == {:closed, :normal}
  end

  defp next_event(sleeper) do
    receive do
      message ->
        with :other <- Nanosleep.message(sleeper, message), do: next_event(sleeper)
    after
      5_000 -> :nothing
    end
  end

  @tag :unix
  test "a killed program ends a sleep with an error", %{sleeper: sleeper} do
    os_pid = Nanosleep.os_pid(sleeper)
    spawn(fn -> Process.sleep(50) && System.cmd("kill", ["-9", "#{os_pid}"]) end)
    assert Nanosleep.sleep(sleeper, 10_000_000_000) == {:error, :closed}
  end

  test "bytes the program does not understand end it with status 2", %{sleeper: sleeper} do
    # As a test written against nanosleep's struct reaches its port.
    %{port: port} = sleeper
    Port.command(port, <<1, 2, 3>>)
    assert_receive message, 5_000
    assert Nanosleep.message(sleeper, message) == {:closed, 2}
  end
end
