# The compiler that puts the port program in priv/, and its choice of program, must exist
# before this project compiles, so they load with the project definition.
Code.require_file("mix/port_target.exs", __DIR__)
Code.require_file("mix/compile.punctual_port.exs", __DIR__)

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
  # `cargo package` makes them, and their lock file) and, in a release, the prebuilt
  # programs (`native/prebuilt/TRIPLE/punctual-port`); `mix/` the compiler that installs
  # one. `scripts/elixir-package` in the repository lays it out.
  defp package do
    [
      licenses: ["MIT", "Apache-2.0"],
      links: %{
        "GitHub" => @source_url,
        "Changelog" => "#{@source_url}/blob/main/clients/elixir/CHANGELOG.md"
      },
      files:
        ~w(lib native mix mix.exs .formatter.exs README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE)
    ]
  end
end
