defmodule Punctual.MixProject do
  use Mix.Project

  # The repository this package sits in: `mix compile` builds the port program there.
  @repo_root Path.expand("../..", __DIR__)

  def project do
    [
      app: :punctual,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      deps: [],
      aliases: [compile: [&build_port/1, "compile"]],
      description:
        "Sub-millisecond sleeps for the BEAM: punctual's Rust port program, one port shared " <>
          "by every process of a node."
    ]
  end

  def application, do: [extra_applications: [:logger]]

  # Builds `punctual-port` with cargo when this package is inside its repository, unless
  # PUNCTUAL_PORT names a binary already. Elsewhere the binary comes from the :port_path
  # application setting, PUNCTUAL_PORT or `open(path: ...)`.
  defp build_port(_args) do
    cond do
      System.get_env("PUNCTUAL_PORT") not in [nil, ""] ->
        :ok

      not File.exists?(Path.join(@repo_root, "crates/punctual-port/Cargo.toml")) ->
        :ok

      System.find_executable("cargo") == nil ->
        Mix.shell().info("punctual: cargo not found; set PUNCTUAL_PORT to a punctual-port binary")

      true ->
        args = ["build", "--release", "--quiet", "-p", "punctual-port"]

        case System.cmd("cargo", args, cd: @repo_root, stderr_to_stdout: true) do
          {_, 0} ->
            :ok

          {output, status} ->
            Mix.raise("cargo #{Enum.join(args, " ")} failed (#{status}):\n#{output}")
        end
    end
  end
end
