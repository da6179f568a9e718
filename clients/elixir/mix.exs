defmodule Punctual.MixProject do
  use Mix.Project

  @version "0.1.0"
  @source_url "https://github.com/punctual-rs/punctual"

  def project do
    [
      app: :punctual,
      version: @version,
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      deps: [],
      compilers: [:punctual_port | Mix.compilers()],
      description:
        "Sub-millisecond sleeps for the BEAM: punctual's Rust port program, one port shared " <>
          "by every process of a node.",
      package: package(),
      source_url: @source_url
    ]
  end

  def application, do: [extra_applications: [:logger]]

  # What `mix hex.build` puts in the package. `native/` holds the Rust sources the port
  # program is built from (the punctual-sys, punctual and punctual-port crates as
  # `cargo package` makes them, and their lock file); `scripts/elixir-package` in the repository lays it out.
  defp package do
    [
      licenses: ["MIT", "Apache-2.0"],
      links: %{"GitHub" => @source_url},
      files: ~w(lib native mix.exs .formatter.exs README.md LICENSE-MIT LICENSE-APACHE)
    ]
  end
end

defmodule Mix.Tasks.Compile.PunctualPort do
  @moduledoc false
  # Builds the punctual-port program with cargo and puts it in this package's priv/, where
  # Punctual.Binary finds it at run time, as nanosleep builds its C program with make.
  # Inside the repository it builds from the workspace; in a package, from native/.
  # PUNCTUAL_PORT set to a binary skips the build.
  use Mix.Task.Compiler

  @package Path.expand(__DIR__)
  @repo_root Path.expand("../..", __DIR__)

  @impl true
  def run(_args) do
    if System.get_env("PUNCTUAL_PORT") in [nil, ""], do: build(), else: {:noop, []}
  end

  defp build do
    {cargo_args, cwd, target_dir} = source()
    cargo = System.find_executable("cargo") || Mix.raise(no_cargo())
    env = if System.get_env("CARGO_TARGET_DIR"), do: [], else: [{"CARGO_TARGET_DIR", target_dir}]
    args = ["build", "--profile", "port", "--quiet"] ++ cargo_args

    case System.cmd(cargo, args, cd: cwd, env: env, stderr_to_stdout: true) do
      {_, 0} ->
        :ok

      {output, status} ->
        Mix.raise("punctual: cargo #{Enum.join(args, " ")} failed (#{status}):\n#{output}")
    end

    built = Path.join([System.get_env("CARGO_TARGET_DIR") || target_dir, "port", program()])
    installed = Path.join([@package, "priv", program()])

    if File.exists?(installed) and File.stat!(installed).mtime >= File.stat!(built).mtime do
      {:noop, []}
    else
      File.mkdir_p!(Path.dirname(installed))
      File.cp!(built, installed)
      File.chmod!(installed, 0o755)
      # Mix links priv/ into the build only if it existed when the build began.
      Mix.Project.build_structure()
      {:ok, []}
    end
  end

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
            "#{@package}); reinstall the package, or set PUNCTUAL_PORT to a punctual-port binary"
        )
    end
  end

  defp no_cargo do
    "punctual: building the port program needs Rust's cargo, which is not on PATH. " <>
      "Install a Rust toolchain (https://rustup.rs) and compile again, or install the " <>
      "program yourself (`cargo install punctual-port`) and set PUNCTUAL_PORT to its path " <>
      "when you compile and run."
  end

  defp program,
    do: if(match?({:win32, _}, :os.type()), do: "punctual-port.exe", else: "punctual-port")
end
