defmodule Mix.Tasks.Compile.PunctualPort.Target do
  @moduledoc false
  # Which port program a build wants, as a Rust target triple, and where it comes from:
  # the prebuilt program the package carries for that triple, or cargo. Pure (the
  # environment and the host's :erlang.system_info(:system_architecture) are arguments),
  # so that test/port_target_test.exs can give it any machine; the compiler in
  # compile.punctual_port.exs does the I/O.
  #
  # The triple is, first to last:
  #   * PUNCTUAL_TARGET, as given;
  #   * for a cross build (MIX_TARGET other than host, as Nerves sets it) the device that
  #     TARGET_ARCH, TARGET_OS, TARGET_ABI and TARGET_CPU describe, the variables Nerves
  #     systems set and rustler_precompiled reads; they are ignored for the host, as
  #     zigler does;
  #   * this host's.
  # Linux programs are static (musl; ARMv7's a static glibc build, since the rustup server
  # the release is built with answers 404 for armv7-unknown-linux-musleabihf's rust-std), so
  # one serves every distribution of its architecture and the ABI of an aarch64 or x86_64
  # machine does not matter.

  @type pick :: %{
          triple: String.t() | nil,
          cargo_target: String.t() | nil,
          for: String.t()
        }
  @type reason ::
          {:invalid_target, String.t()}
          | {:invalid_build, String.t()}
          | {:no_target_arch, String.t()}
          | {:unknown_target, String.t()}
          | {:unknown_host, String.t()}

  @doc """
  The program `env` and the host's system architecture ask for.

  `triple` is its Rust target triple; `cargo_target` the `--target` a cargo build takes
  (nil for the host's own build: on an x86_64 Linux host a prebuilt program is the musl
  one, a build from source is the host's native one); `for` says what it is for, in the
  words of the messages.
  """
  @spec pick(%{optional(String.t()) => String.t()}, String.t()) ::
          {:ok, pick} | {:error, reason}
  def pick(env, system_architecture) do
    cond do
      explicit = non_empty(env["PUNCTUAL_TARGET"]) -> explicit(explicit)
      cross?(env["MIX_TARGET"]) -> cross(env)
      true -> host(system_architecture)
    end
  end

  @doc """
  The port program the user named in place of the one the compiler installs: the
  `:port_path` application setting (`port_path`), then PUNCTUAL_PORT in `env`, the order
  `Punctual.Binary.path/1` takes them at run time after `open(path: ...)`, which a compile
  cannot see. With either, the compiler installs and builds nothing, whatever the package
  carries and whether cargo is there; the path is the one the node will run, on its own
  machine (a Nerves device's, say), so it need not exist where the compile runs. nil: none.
  """
  @spec configured(term, %{optional(String.t()) => String.t()}) ::
          {:port_path | :env, term} | nil
  def configured(port_path, env) do
    cond do
      path = non_empty(port_path) -> {:port_path, path}
      path = non_empty(env["PUNCTUAL_PORT"]) -> {:env, path}
      true -> nil
    end
  end

  @doc """
  What the compiler does: install the prebuilt program for `pick`'s triple, when
  `carried` (the triples the package has programs for) holds it and PUNCTUAL_BUILD does
  not ask for a build; otherwise build with cargo, `:asked` or because the program is
  `:not_carried`. A host with no known triple builds its native program with cargo.
  """
  @spec plan(%{optional(String.t()) => String.t()}, String.t(), [String.t()]) ::
          {:ok, {:prebuilt, pick} | {:cargo, pick, :asked | :not_carried}} | {:error, reason}
  def plan(env, system_architecture, carried) do
    with {:ok, build?} <- build_asked(env["PUNCTUAL_BUILD"]) do
      case pick(env, system_architecture) do
        {:ok, pick} ->
          cond do
            build? -> {:ok, {:cargo, pick, :asked}}
            pick.triple in carried -> {:ok, {:prebuilt, pick}}
            true -> {:ok, {:cargo, pick, :not_carried}}
          end

        {:error, {:unknown_host, arch}} ->
          {:ok, {:cargo, native(arch), if(build?, do: :asked, else: :not_carried)}}

        {:error, _} = error ->
          error
      end
    end
  end

  @doc "The program's file name for `triple` (nil: the host's native build)."
  @spec program(String.t() | nil) :: String.t()
  def program(nil), do: if(match?({:win32, _}, :os.type()), do: windows(), else: unix())
  def program(triple), do: if(String.contains?(triple, "windows"), do: windows(), else: unix())

  defp windows, do: "punctual-port.exe"
  defp unix, do: "punctual-port"

  @doc "A sentence for `reason`, for the compiler's messages."
  @spec message(reason) :: String.t()
  def message({:invalid_target, value}),
    do:
      "PUNCTUAL_TARGET=#{value} is not a Rust target triple (such as aarch64-unknown-linux-musl)"

  def message({:invalid_build, value}),
    do:
      "PUNCTUAL_BUILD=#{value}: give 1 or true to build from source, 0 or false (or nothing) not to"

  def message({:no_target_arch, mix_target}) do
    "MIX_TARGET=#{mix_target} is a cross build, but TARGET_ARCH or TARGET_OS is not set " <>
      "(Nerves systems set them, with TARGET_ABI), so the device is unknown"
  end

  def message({:unknown_target, described}),
    do: "punctual knows no port program for #{described}"

  def message({:unknown_host, arch}),
    do: "punctual knows no prebuilt port program for this host's architecture, #{arch}"

  # Triples as rustc spells them: lowercase words, two to four of them.
  defp explicit(value) do
    if value =~ ~r/\A[a-z0-9_.]+(-[a-z0-9_.]+){1,3}\z/ do
      {:ok, %{triple: value, cargo_target: value, for: "PUNCTUAL_TARGET=#{value}"}}
    else
      {:error, {:invalid_target, value}}
    end
  end

  # In the order the messages quote them.
  @device ~w(TARGET_ARCH TARGET_OS TARGET_ABI TARGET_CPU)

  defp cross?(mix_target), do: non_empty(mix_target) not in [nil, "host"]

  defp cross(env) do
    device = Map.new(@device, &{&1, non_empty(env[&1])})
    settings = for name <- @device, value = device[name], do: "#{name}=#{value}"
    described = "MIX_TARGET=#{env["MIX_TARGET"]} (#{Enum.join(settings, ", ")})"
    %{"TARGET_ARCH" => arch, "TARGET_OS" => os, "TARGET_ABI" => abi, "TARGET_CPU" => cpu} = device

    cond do
      arch == nil or os == nil ->
        {:error, {:no_target_arch, env["MIX_TARGET"]}}

      triple = os == "linux" && linux(arch, abi, cpu) ->
        {:ok, %{triple: triple, cargo_target: triple, for: described}}

      true ->
        {:error, {:unknown_target, described}}
    end
  end

  # Erlang's architecture: "win32" on Windows, otherwise a GNU triple such as
  # x86_64-pc-linux-gnu, armv7l-unknown-linux-gnueabihf or aarch64-apple-darwin23.4.0.
  # A port program is a process of its own, so it must fit the OS, not the BEAM's word
  # size: Windows gets the x64 one (ARM64 Windows runs it emulated).
  defp host("win32"), do: host_pick("x86_64-pc-windows-gnu", "win32")

  defp host(arch) do
    [cpu | rest] = String.split(arch, "-")

    triple =
      case Enum.split_while(rest, &(&1 != "linux")) do
        {_, ["linux" | abi]} -> linux(cpu, List.first(abi), nil)
        _ -> if Enum.any?(rest, &String.starts_with?(&1, "darwin")), do: darwin(cpu)
      end

    if triple, do: host_pick(triple, arch), else: {:error, {:unknown_host, arch}}
  end

  defp host_pick(triple, arch),
    do: {:ok, %{triple: triple, cargo_target: nil, for: "this host, #{arch}"}}

  defp native(arch), do: %{triple: nil, cargo_target: nil, for: "this host, #{arch}"}

  # `cpu` is the first word of a triple or TARGET_ARCH; `abi` what follows "linux";
  # `model` TARGET_CPU (Nerves spells it with underscores: cortex_a8, arm1176jzf_s).
  defp linux(cpu, _abi, _model) when cpu in ~w(x86_64 amd64), do: "x86_64-unknown-linux-musl"
  defp linux(cpu, _abi, _model) when cpu in ~w(aarch64 arm64), do: "aarch64-unknown-linux-musl"

  defp linux(cpu, abi, model) do
    hard_float? = is_binary(abi) and String.ends_with?(abi, "eabihf")

    cond do
      not hard_float? or not String.starts_with?(cpu, "arm") ->
        nil

      String.starts_with?(cpu, ["armv7", "armv8"]) ->
        "armv7-unknown-linux-gnueabihf"

      # The Raspberry Pi Zero and 1 are ARMv6 (ARM11): an ARMv7 program would die of an
      # illegal instruction there. Rust's arm-unknown-linux-gnueabihf is ARMv6 with VFP.
      String.starts_with?(cpu, "armv6") ->
        "arm-unknown-linux-gnueabihf"

      cpu == "arm" and arm11?(model) ->
        "arm-unknown-linux-gnueabihf"

      cpu == "arm" and (model == nil or String.starts_with?(model, "cortex_a")) ->
        "armv7-unknown-linux-gnueabihf"

      true ->
        nil
    end
  end

  defp arm11?(nil), do: false
  defp arm11?(model), do: String.starts_with?(model, "arm11")

  defp darwin(cpu) when cpu in ~w(aarch64 arm arm64), do: "aarch64-apple-darwin"
  defp darwin("x86_64"), do: "x86_64-apple-darwin"
  defp darwin(_), do: nil

  defp build_asked(value) when value in [nil, "", "0", "false"], do: {:ok, false}
  defp build_asked(value) when value in ["1", "true"], do: {:ok, true}
  defp build_asked(value), do: {:error, {:invalid_build, value}}

  defp non_empty(""), do: nil
  defp non_empty(value), do: value
end
