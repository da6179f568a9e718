defmodule Punctual.PackageTest do
  # Runs in the package as scripts/elixir-package lays it out (test_helper.exs includes it
  # where native/ exists); in the repository it is reported as excluded.
  use ExUnit.Case, async: true
  @moduletag :package

  alias Mix.Tasks.Compile.PunctualPort.Target

  test "every file the package lists is there, with the Rust sources its build needs" do
    files = Mix.Project.config()[:package][:files]

    for file <- files do
      assert File.exists?(file), "#{file} is in package[:files] but not in the package"
    end

    for needed <- ~w(lib mix mix.exs native) do
      assert needed in files, "#{needed} is not in package[:files]: the build needs it"
    end

    for doc <- ~w(README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE) do
      assert doc in files, "#{doc} is not in package[:files]: a Hex user reads it there"
    end

    for source <-
          ~w(native/Cargo.toml native/Cargo.lock native/punctual-port/Cargo.toml
             native/punctual-port/src/main.rs native/punctual/Cargo.toml native/punctual/src/lib.rs
             native/punctual-sys/Cargo.toml native/punctual-sys/src/lib.rs
             mix/port_target.exs mix/compile.punctual_port.exs) do
      assert File.regular?(source), "#{source} is missing: cargo cannot build the port program"
    end
  end

  test "each prebuilt program is an executable named as the compiler looks for it" do
    for dir <- Path.wildcard("native/prebuilt/*") do
      program = Target.program(Path.basename(dir))
      assert File.ls!(dir) == [program], "#{dir} should hold #{program} and nothing else"
      %File.Stat{type: :regular, mode: mode} = File.stat!(Path.join(dir, program))
      assert Bitwise.band(mode, 0o111) == 0o111, "#{dir}/#{program} is not executable"
    end
  end
end
