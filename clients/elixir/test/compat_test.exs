defmodule Punctual.CompatTest do
  # The binary as nanosleep 0.3's Elixir side drives its C program: raw protocol 1 over a
  # port it owns, with nanosleep's arguments. Nothing of Punctual's client is used.
  use ExUnit.Case, async: true

  setup do
    {:ok, path} = Punctual.Binary.path([])
    %{path: path}
  end

  defp open(path, args) do
    Port.open({:spawn_executable, path}, [
      :binary,
      {:packet, 2},
      :exit_status,
      :use_stdio,
      args: args
    ])
  end

  test "answers nanosleep's requests with the nanoseconds slept", %{path: path} do
    port = open(path, ["--no-realtime"])

    for ns <- [1, 250_000, 1_000_000, 0, -5] do
      true = Port.command(port, <<ns::signed-64>>)
      assert_receive {^port, {:data, <<slept::signed-64>>}}, 5_000
      assert slept >= max(ns, 0)
    end

    Port.close(port)
  end

  test "takes nanosleep's real-time arguments", %{path: path} do
    # What nanosleep passes on Linux by default; refused or not, the program carries on.
    port = open(path, ["--above", System.pid()])
    true = Port.command(port, <<1_000::signed-64>>)
    assert_receive {^port, {:data, <<slept::signed-64>>}}, 5_000
    assert slept >= 1_000
    Port.close(port)
  end

  test "a request it doesn't understand ends it with status 2", %{path: path} do
    Process.flag(:trap_exit, true)
    port = open(path, ["--no-realtime"])
    Port.command(port, <<1, 2, 3>>)
    assert_receive {^port, {:exit_status, 2}}, 5_000
  end
end
