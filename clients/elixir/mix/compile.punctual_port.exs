defmodule Mix.Tasks.Compile.PunctualPort do
  @moduledoc false
  # Puts the punctual-port program in this build's priv/ (under Mix.Project.app_path/0, so
  # one per MIX_TARGET and MIX_ENV: a Nerves firmware and the host's tests each get their
  # own), where Punctual.Binary finds it at run time. Target.plan/3 says which: the
  # prebuilt program the package carries for the target triple (native/prebuilt/TRIPLE/,
  # which scripts/elixir-package --prebuilt fills), or one cargo builds from the carried
  # Rust sources (native/; inside the repository, the workspace), as nanosleep builds its
  # C program with make. A program the user names, with the :port_path setting or
  # PUNCTUAL_PORT (Target.configured/2), skips it all: it is what the node will run.
  use Mix.Task.Compiler

  alias __MODULE__.Target

  @package Path.expand("..", __DIR__)
  @repo_root Path.expand("../../..", __DIR__)
  @prebuilt Path.join(@package, "native/prebuilt")

  @impl true
  def run(_args) do
    # The project's config (config/config.exs and what it imports, which Mix loads before
    # compiling) is in the application environment by now; config/runtime.exs is not.
    port_path = Application.get_env(:punctual, :port_path)

    case Target.configured(port_path, System.get_env()) do
      nil -> install_or_build()
      {_named_by, _program} -> {:noop, []}
    end
  end

  defp install_or_build do
    env = Map.put(System.get_env(), "MIX_TARGET", Atom.to_string(Mix.target()))
    arch = List.to_string(:erlang.system_info(:system_architecture))
    carried = carried()

    case Target.plan(env, arch, carried) do
      {:ok, {:prebuilt, pick}} ->
        install(prebuilt(pick.triple), pick, "prebuilt port program for #{pick.triple}")

      {:ok, {:cargo, pick, why}} ->
        target = if pick.cargo_target, do: " --target #{pick.cargo_target}", else: ""
        install(build(pick, why, carried), pick, "port program built with cargo#{target}")

      {:error, reason} ->
        Mix.raise("punctual: #{Target.message(reason)}.#{what_to_do(reason, carried)}")
    end
  end

  defp carried do
    for dir <- Path.wildcard(Path.join(@prebuilt, "*")), File.dir?(dir), do: Path.basename(dir)
  end

  defp prebuilt(triple) do
    program = Path.join([@prebuilt, triple, Target.program(triple)])

    File.regular?(program) ||
      Mix.raise(
        "punctual: the package's native/prebuilt/#{triple}/ has no #{Target.program(triple)}: " <>
          "it is incomplete; reinstall it, or set PUNCTUAL_BUILD=1 to build the program with cargo"
      )

    program
  end

  defp install(program, pick, what) do
    priv = priv!()
    name = Target.program(pick.cargo_target || pick.triple)
    installed = Path.join(priv, name)

    if File.regular?(installed) and File.read!(installed) == File.read!(program) do
      {:noop, []}
    else
      File.mkdir_p!(priv)
      # A program of the other name (PUNCTUAL_TARGET changed to or from Windows) would go
      # into a release beside this one.
      other = if name == "punctual-port", do: "punctual-port.exe", else: "punctual-port"
      File.rm_rf!(Path.join(priv, other))
      File.cp!(program, installed)
      File.chmod!(installed, 0o755)
      Mix.shell().info("punctual: #{what} (#{pick.for}) in #{Path.relative_to_cwd(installed)}")
      {:ok, []}
    end
  end

  # The build's priv/ must be its own: Mix links it to the package's priv/ when there is
  # one, which the package never ships but an earlier version of this compiler wrote.
  defp priv! do
    if File.dir?(Path.join(@package, "priv")) do
      Mix.raise(
        "punctual: #{Path.join(@package, "priv")} is left from an earlier version of " <>
          "punctual, which built the port program there. Mix links every build's priv/ to " <>
          "it, so each MIX_TARGET would overwrite the others' program; the program now " <>
          "goes into each build's own priv/. Remove that directory and compile again."
      )
    end

    priv = Path.join(Mix.Project.app_path(), "priv")
    # That earlier version's link, with the package's priv/ gone.
    if match?({:ok, _}, File.read_link(priv)), do: File.rm!(priv)
    priv
  end

  defp build(pick, why, carried) do
    {cargo_args, cwd, default_target_dir} = source()
    cargo = System.find_executable("cargo") || Mix.raise(no_cargo(pick, why, carried))
    target_dir = Path.expand(System.get_env("CARGO_TARGET_DIR") || default_target_dir, cwd)
    target_args = if pick.cargo_target, do: ["--target", pick.cargo_target], else: []
    args = ["build", "--profile", "port", "--quiet"] ++ target_args ++ cargo_args
    env = [{"CARGO_TARGET_DIR", target_dir}]

    case System.cmd(cargo, args, cd: cwd, env: env, stderr_to_stdout: true) do
      {_, 0} ->
        Path.join([target_dir | List.wrap(pick.cargo_target)] ++ ["port", program(pick)])

      {output, status} ->
        Mix.raise("punctual: cargo #{Enum.join(args, " ")} failed (#{status}):\n#{output}")
    end
  end

  defp program(pick), do: Target.program(pick.cargo_target || pick.triple)

  defp source do
    cond do
      File.exists?(Path.join(@repo_root, "crates/punctual-port/Cargo.toml")) ->
        {["-p", "punctual-port"], @repo_root, Path.join(@repo_root, "target")}

      File.exists?(Path.join(@package, "native/Cargo.toml")) ->
        manifest = Path.join(@package, "native/Cargo.toml")
        target = Path.join(Mix.Project.build_path(), "punctual_port")
        {["--locked", "--manifest-path", manifest], @package, target}

      true ->
        Mix.raise(
          "punctual: the port program's Rust sources are missing (no native/Cargo.toml in " <>
            "#{@package}); reinstall the package, or name a punctual-port program with " <>
            "`config :punctual, port_path: ...` or PUNCTUAL_PORT"
        )
    end
  end

  defp no_cargo(pick, why, carried) do
    wanted = if pick.triple, do: "#{pick.triple} (#{pick.for})", else: pick.for

    first =
      case why do
        :asked ->
          "PUNCTUAL_BUILD=#{System.get_env("PUNCTUAL_BUILD")} asks for the port program " <>
            "for #{wanted} to be built from source."

        :not_carried ->
          "this package carries no prebuilt port program for #{wanted}; " <>
            "it carries #{carried_list(carried)}."
      end

    rustup =
      if pick.cargo_target,
        do: ", add the target (`rustup target add #{pick.cargo_target}`)",
        else: ""

    "punctual: #{first} Building the program needs Rust's cargo, which is not on PATH. " <>
      "Install a Rust toolchain (https://rustup.rs)#{rustup} and compile again, or name a " <>
      "punctual-port program you built (`cargo install punctual-port`) with " <>
      "`config :punctual, port_path: ...` in config/config.exs or PUNCTUAL_PORT: then " <>
      "nothing is built."
  end

  defp what_to_do({:invalid_build, _}, _carried), do: ""

  defp what_to_do(_reason, carried) do
    " Set PUNCTUAL_TARGET to the Rust target triple of the machine the program is to run " <>
      "on (this package carries #{carried_list(carried)}; cargo builds for any triple), or " <>
      "name a punctual-port program with `config :punctual, port_path: ...` or " <>
      "PUNCTUAL_PORT: then nothing is built."
  end

  defp carried_list([]), do: "no prebuilt programs"
  defp carried_list(carried), do: "prebuilt programs for " <> Enum.join(carried, ", ")
end
