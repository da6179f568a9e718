defmodule PunctualTest do
  # What the client does, over both protocols; not how punctually (CI machines are busy and
  # wake late: a second late is a broken sleep, not a slow one).
  use ExUnit.Case, async: true

  doctest Punctual

  @slack 1_000_000_000

  for protocol <- [1, 2] do
    # What cancel/2 says of a wake no longer pending: protocol 1 cannot cancel at all.
    not_pending = if protocol == 1, do: :unsupported, else: :not_pending

    describe "protocol #{protocol}" do
      setup do
        {:ok, sleeper} = Punctual.open(protocol: unquote(protocol), realtime: false)
        %{sleeper: sleeper}
      end

      test "sleeps at least as long as asked, and answers", %{sleeper: sleeper} do
        for ns <- [1, 1_000, 100_000, 1_000_000, 5_000_000] do
          started = System.monotonic_time(:nanosecond)
          assert {:ok, slept} = Punctual.sleep(sleeper, ns)
          assert slept >= ns
          assert slept - ns < @slack
          assert System.monotonic_time(:nanosecond) - started >= ns
        end
      end

      test "a sleep of zero or less answers at once", %{sleeper: sleeper} do
        assert {:ok, slept} = Punctual.sleep(sleeper, 0)
        assert slept < @slack
        assert {:ok, slept} = Punctual.sleep(sleeper, -1_000_000_000)
        assert slept < @slack
      end

      test "sleeps until a deadline, never early, with or without spinning", %{sleeper: sleeper} do
        for spin <- [0, 250_000, 5_000_000] do
          deadline = System.monotonic_time(:nanosecond) + 1_000_000
          assert {:ok, late} = Punctual.sleep_until(sleeper, deadline, spin: spin)
          assert late >= 0 and late < @slack
          assert System.monotonic_time(:nanosecond) >= deadline
        end

        assert {:ok, _} = Punctual.sleep_until(sleeper, System.monotonic_time(:nanosecond) - 1)
      end

      test "answers come as messages, for message/2", %{sleeper: sleeper} do
        assert {:ok, id} = Punctual.wake_after(sleeper, 200_000)
        assert_receive message, 5_000
        assert {:woke, ^id, lateness} = Punctual.message(sleeper, message)
        assert lateness >= 0 and lateness < @slack
        assert Punctual.message(sleeper, :something_else) == :other
        assert Punctual.cancel(sleeper, id) == {:error, unquote(not_pending)}
      end

      test "wake_at with spin: wakes early, and spin_until waits out the rest", %{
        sleeper: sleeper
      } do
        deadline = System.monotonic_time(:nanosecond) + 3_000_000
        assert {:ok, id} = Punctual.wake_at(sleeper, deadline, spin: 2_000_000)
        assert_receive message, 5_000
        assert {:woke, ^id, _lateness} = Punctual.message(sleeper, message)
        assert Punctual.spin_until(deadline) == :ok
        assert System.monotonic_time(:nanosecond) >= deadline
      end

      test "a sleep that times out leaves nothing behind in the mailbox", %{sleeper: sleeper} do
        assert Punctual.sleep(sleeper, 50_000_000, 5) == {:error, :timeout}
        # Long past the moment the answer would have come.
        Process.sleep(150)
        assert Process.info(self(), :messages) == {:messages, []}

        # And where the answer races the timeout, whichever wins.
        for _ <- 1..200 do
          deadline = System.monotonic_time(:nanosecond) + 1_000_000

          case Punctual.sleep_until(sleeper, deadline, timeout: 1) do
            {:ok, _} -> :ok
            {:error, :timeout} -> :ok
          end
        end

        Process.sleep(50)
        assert Process.info(self(), :messages) == {:messages, []}
        assert {:ok, _} = Punctual.sleep(sleeper, 1_000)
      end

      # White-box: plays the server winning the race for the entry and its answer reaching
      # the caller only after the caller has given up.
      test "an answer that arrives after the timeout is dropped", %{sleeper: sleeper} do
        test = self()

        spawn_link(fn ->
          {id, alias} = wait_for_entry(sleeper)
          [_] = :ets.take(sleeper.table, id)
          send(test, :taken)
          Process.sleep(100)
          send(alias, {alias, {:woke, 0, 0}})
          send(test, :sent)
        end)

        assert Punctual.sleep(sleeper, 10_000_000_000, 20) == {:error, :timeout}
        assert_receive :taken, 5_000
        assert_receive :sent, 5_000
        Process.sleep(50)
        assert Process.info(self(), :messages) == {:messages, []}
      end

      test "many processes share one port", %{sleeper: sleeper} do
        start = System.monotonic_time(:nanosecond) + 5_000_000

        results =
          1..100
          |> Enum.map(fn i ->
            Task.async(fn ->
              deadline = start + rem(i * 37, 100) * 50_000
              {Punctual.sleep_until(sleeper, deadline), deadline}
            end)
          end)
          |> Task.await_many(30_000)

        for {result, _deadline} <- results do
          assert {:ok, late} = result
          assert late >= 0 and late < @slack
        end
      end

      test "a closed port answers :closed, and pending wakes hear of it", %{sleeper: sleeper} do
        {:ok, id} = Punctual.wake_after(sleeper, 10_000_000_000)
        assert Punctual.close(sleeper) == :ok
        assert_receive message, 1_000
        assert Punctual.message(sleeper, message) == {:closed, :closed}
        assert Punctual.sleep(sleeper, 1) == {:error, :closed}
        assert Punctual.wake_after(sleeper, 1) == {:error, :closed}
        assert Punctual.cancel(sleeper, id) == {:error, unquote(not_pending)}
        assert Punctual.close(sleeper) == :ok
      end

      @tag :unix
      test "a killed program closes the handle, and its waiters hear of it", %{sleeper: sleeper} do
        {:ok, _id} = Punctual.wake_after(sleeper, 10_000_000_000)
        task = Task.async(fn -> Punctual.sleep(sleeper, 10_000_000_000) end)
        Process.sleep(50)
        System.cmd("kill", ["-9", "#{Punctual.os_pid(sleeper)}"])
        assert_receive message, 5_000
        assert {:closed, status} = Punctual.message(sleeper, message)
        assert status != 0
        assert Task.await(task) == {:error, :closed}
        assert Punctual.sleep(sleeper, 1) == {:error, :closed}
      end
    end
  end

  # Protocol 1 cannot cancel: test/bad_input_test.exs has what it does instead.
  test "a cancelled wake never comes" do
    {:ok, sleeper} = Punctual.open(realtime: false)
    assert {:ok, id} = Punctual.wake_after(sleeper, 100_000_000)
    assert Punctual.cancel(sleeper, id) == :ok
    assert Punctual.cancel(sleeper, id) == {:error, :not_pending}
    refute_receive _, 300
    # The port is still serving.
    assert {:ok, _} = Punctual.sleep(sleeper, 1_000)
  end

  test "a spin tail per wake is one the wire carries" do
    {:ok, sleeper} = Punctual.open(realtime: false)

    for ns <- [-1, 4_294_967_296, 1.0] do
      assert Punctual.wake_after(sleeper, 1, port_spin: ns) ==
               {:error, {:invalid, :port_spin, ns}}
    end

    refute_receive _, 100
  end

  test "a missing program is an error, not a crash" do
    assert Punctual.open(path: "/nonexistent/punctual-port") ==
             {:error, {:no_port_program, "/nonexistent/punctual-port"}}
  end

  test "a port spin tail per wake and per port is never early" do
    {:ok, sleeper} = Punctual.open(realtime: false, port_spin: 100_000)

    for port_spin <- [0, 300_000] do
      deadline = System.monotonic_time(:nanosecond) + 2_000_000
      assert {:ok, late} = Punctual.sleep_until(sleeper, deadline, port_spin: port_spin)
      assert late >= 0
    end

    {:ok, one} = Punctual.open(protocol: 1, realtime: false)
    assert Punctual.wake_after(one, 1, port_spin: 1_000) == {:error, :unsupported}
  end

  test "a wake the program refuses comes back as an error message" do
    {:ok, sleeper} = Punctual.open(realtime: false, max_pending: 1)
    {:ok, first} = Punctual.wake_after(sleeper, 60_000_000_000)
    {:ok, second} = Punctual.wake_after(sleeper, 1)
    assert_receive message, 5_000
    assert Punctual.message(sleeper, message) == {:error, second, :too_many_pending}
    assert Punctual.cancel(sleeper, first) == :ok
    assert {:ok, _} = Punctual.sleep(sleeper, 1_000)
  end

  test "a port under a supervisor serves by name" do
    start_supervised!({Punctual, name: PunctualTest.Shared, realtime: false})
    sleeper = Punctual.handle(PunctualTest.Shared)
    assert {:ok, slept} = Punctual.sleep(sleeper, 100_000)
    assert slept >= 100_000
  end

  # Runs the program as nobody with no real-time limit, through a wrapper script given as
  # its path; it needs root to drop privileges, and says so when skipped.
  @tag :unix
  test "a fixed priority refused fails open/1" do
    if System.cmd("id", ["-u"]) != {"0\n", 0} do
      IO.puts("skipped: a fixed priority refused needs root")
    else
      {:ok, binary} = Punctual.Binary.path([])
      dir = Path.join(System.tmp_dir!(), "punctual-ex-#{System.unique_integer([:positive])}")
      File.mkdir_p!(dir)
      copy = Path.join(dir, "punctual-port")
      File.cp!(binary, copy)
      script = Path.join(dir, "as-nobody")

      File.write!(script, """
      #!/bin/sh
      exec prlimit --rtprio=0:0 setpriv --reuid=nobody --regid=nogroup --clear-groups \\
        --inh-caps=-all #{copy} "$@"
      """)

      for path <- [dir, copy, script], do: File.chmod!(path, 0o755)

      for protocol <- [1, 2] do
        assert Punctual.open(path: script, protocol: protocol, priority: 10) ==
                 {:error, :priority_refused}
      end

      # Without a fixed priority it carries on unprivileged.
      {:ok, sleeper} = Punctual.open(path: script)
      assert {:ok, _} = Punctual.sleep(sleeper, 1_000)
      File.rm_rf!(dir)
    end
  end

  test "pending wakes hear when the process that opened the port crashes" do
    test = self()

    spawn(fn ->
      {:ok, sleeper} = Punctual.open(realtime: false)
      send(test, {:sleeper, self(), sleeper})
      receive do: (:crash -> exit(:crashed))
    end)

    assert_receive {:sleeper, owner, sleeper}, 5_000
    {:ok, _id} = Punctual.wake_after(sleeper, 10_000_000_000)
    send(owner, :crash)
    assert_receive message, 5_000
    assert Punctual.message(sleeper, message) == {:closed, :closed}
  end

  @tag :unix
  test "the program ends with the process that opened it" do
    test = self()

    owner =
      spawn(fn ->
        {:ok, sleeper} = Punctual.open(realtime: false)
        send(test, {:os_pid, Punctual.os_pid(sleeper)})
        receive do: (:stop -> :ok)
      end)

    assert_receive {:os_pid, os_pid}, 5_000
    assert alive?(os_pid)
    send(owner, :stop)
    assert gone?(os_pid)
  end

  defp wait_for_entry(sleeper) do
    case :ets.match(sleeper.table, {:"$1", :"$2", :reply, :_}) do
      [[id, alias]] -> {id, alias}
      [] -> Process.sleep(1) && wait_for_entry(sleeper)
    end
  end

  defp alive?(os_pid),
    do: match?({_, 0}, System.cmd("kill", ["-0", "#{os_pid}"], stderr_to_stdout: true))

  defp gone?(os_pid, tries \\ 200) do
    cond do
      not alive?(os_pid) -> true
      tries == 0 -> false
      true -> Process.sleep(10) && gone?(os_pid, tries - 1)
    end
  end
end
