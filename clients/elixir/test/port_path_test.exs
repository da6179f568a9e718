defmodule Punctual.PortPathTest do
  # The program a node runs when the user names one: `open(path: ...)`, then
  # `config :punctual, port_path: ...`, then PUNCTUAL_PORT, then the one `mix compile`
  # installed; and that compile installs nothing when either of the middle two is set. It
  # changes the application and OS environment that other tests read, so it runs alone.
  use ExUnit.Case, async: false

  alias Mix.Tasks.Compile.PunctualPort
  alias Punctual.Binary

  setup do
    # Not ExUnit's :tmp_dir, which leaves tmp/ in the package.
    dir = Path.join(System.tmp_dir!(), "punctual-port-path-#{System.unique_integer([:positive])}")
    File.mkdir_p!(dir)
    on_exit(fn -> File.rm_rf!(dir) end)
    port_path = Application.fetch_env(:punctual, :port_path)
    env = Map.new(~w(PUNCTUAL_PORT PUNCTUAL_TARGET PUNCTUAL_BUILD), &{&1, System.get_env(&1)})

    on_exit(fn ->
      case port_path do
        {:ok, value} -> Application.put_env(:punctual, :port_path, value)
        :error -> Application.delete_env(:punctual, :port_path)
      end

      for {name, value} <- env do
        if value, do: System.put_env(name, value), else: System.delete_env(name)
      end
    end)

    System.delete_env("PUNCTUAL_BUILD")

    programs =
      Map.new(~w(opened configured environment)a, fn name ->
        path = Path.join(dir, "#{name}-punctual-port")
        File.write!(path, "")
        {name, path}
      end)

    {:ok, programs: programs, dir: dir}
  end

  test "open(path: ...), then :port_path, then PUNCTUAL_PORT, then the compiler's", %{
    programs: programs
  } do
    Application.put_env(:punctual, :port_path, programs.configured)
    System.put_env("PUNCTUAL_PORT", programs.environment)
    assert Binary.path(path: programs.opened) == {:ok, programs.opened}
    assert Binary.path([]) == {:ok, programs.configured}

    Application.delete_env(:punctual, :port_path)
    assert Binary.path([]) == {:ok, programs.environment}

    System.delete_env("PUNCTUAL_PORT")
    # The compiler's program, installed or not: a run with PUNCTUAL_PORT set (as the
    # repository's test script does) installs none.
    built =
      case Binary.path([]) do
        {:ok, path} -> path
        {:error, {:no_port_program, path}} -> path
      end

    assert Path.basename(built) in ~w(punctual-port punctual-port.exe)
    refute built in Map.values(programs)
  end

  test "an empty :port_path counts as unset, as the compiler takes it", %{programs: programs} do
    Application.put_env(:punctual, :port_path, "")
    System.put_env("PUNCTUAL_PORT", programs.environment)
    assert Binary.path([]) == {:ok, programs.environment}
  end

  test "a named program that is missing is an error, not a fall to the next", %{
    programs: programs,
    dir: dir
  } do
    missing = Path.join(dir, "missing")
    Application.put_env(:punctual, :port_path, missing)
    System.put_env("PUNCTUAL_PORT", programs.environment)
    assert Binary.path([]) == {:error, {:no_port_program, missing}}
  end

  test "mix compile installs and builds nothing for a program named by :port_path or PUNCTUAL_PORT" do
    # A PUNCTUAL_TARGET that is no triple stops any compile that goes on to choose a program
    # (a valid one would make it install or build one); the named program need not exist
    # here, since it is the path where the node runs.
    System.put_env("PUNCTUAL_TARGET", "not a triple")
    System.delete_env("PUNCTUAL_PORT")
    Application.put_env(:punctual, :port_path, "/on/the/device/punctual-port")
    assert PunctualPort.run([]) == {:noop, []}

    Application.delete_env(:punctual, :port_path)
    System.put_env("PUNCTUAL_PORT", "/elsewhere/punctual-port")
    assert PunctualPort.run([]) == {:noop, []}

    System.delete_env("PUNCTUAL_PORT")
    assert_raise Mix.Error, ~r/PUNCTUAL_TARGET=not a triple/, fn -> PunctualPort.run([]) end
  end
end
