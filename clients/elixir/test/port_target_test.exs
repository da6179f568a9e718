defmodule Punctual.PortTargetTest do
  # The compiler's choice of port program (mix/port_target.exs), on machines this one is
  # not: hosts by Erlang's system architecture, Nerves devices by the variables their
  # systems set (nerves_system_rpi4: aarch64/linux/gnu, cortex_a72; nerves_system_bbb:
  # arm/linux/gnueabihf, cortex_a8; nerves_system_rpi0: arm/linux/gnueabihf, arm1176jzf_s).
  use ExUnit.Case, async: true

  alias Mix.Tasks.Compile.PunctualPort.Target

  @release ~w(x86_64-unknown-linux-musl aarch64-unknown-linux-musl
              armv7-unknown-linux-gnueabihf x86_64-pc-windows-gnu)

  @rpi4 %{
    "MIX_TARGET" => "rpi4",
    "TARGET_ARCH" => "aarch64",
    "TARGET_CPU" => "cortex_a72",
    "TARGET_OS" => "linux",
    "TARGET_ABI" => "gnu"
  }
  @bbb %{
    "MIX_TARGET" => "bbb",
    "TARGET_ARCH" => "arm",
    "TARGET_CPU" => "cortex_a8",
    "TARGET_OS" => "linux",
    "TARGET_ABI" => "gnueabihf"
  }
  @rpi0 %{
    "MIX_TARGET" => "rpi0",
    "TARGET_ARCH" => "arm",
    "TARGET_CPU" => "arm1176jzf_s",
    "TARGET_OS" => "linux",
    "TARGET_ABI" => "gnueabihf"
  }
  @host %{"MIX_TARGET" => "host"}

  defp triple(env, arch) do
    assert {:ok, %{triple: triple}} = Target.pick(env, arch)
    triple
  end

  describe "the host's program" do
    test "any x86_64 Linux gets the static musl program, whatever its vendor and libc" do
      for arch <- ~w(x86_64-pc-linux-gnu x86_64-unknown-linux-gnu x86_64-redhat-linux-gnu
                     x86_64-alpine-linux-musl) do
        assert triple(@host, arch) == "x86_64-unknown-linux-musl", arch
      end
    end

    test "aarch64 Linux, glibc or musl, gets the aarch64 musl program" do
      assert triple(@host, "aarch64-unknown-linux-gnu") == "aarch64-unknown-linux-musl"
      assert triple(@host, "aarch64-alpine-linux-musl") == "aarch64-unknown-linux-musl"
    end

    test "hard-float 32-bit ARM Linux gets the ARMv7 program" do
      for arch <- ~w(armv7l-unknown-linux-gnueabihf arm-unknown-linux-gnueabihf
                     armv8l-unknown-linux-gnueabihf arm-buildroot-linux-gnueabihf) do
        assert triple(@host, arch) == "armv7-unknown-linux-gnueabihf", arch
      end
    end

    test "an ARMv6 host gets the ARMv6 triple, which no release carries" do
      assert triple(@host, "armv6l-unknown-linux-gnueabihf") == "arm-unknown-linux-gnueabihf"
    end

    test "Windows gets the x64 program, whose file name ends in .exe" do
      assert triple(@host, "win32") == "x86_64-pc-windows-gnu"
      assert Target.program("x86_64-pc-windows-gnu") == "punctual-port.exe"
      assert Target.program("aarch64-unknown-linux-musl") == "punctual-port"
    end

    test "macOS gets its own triple, which cargo builds" do
      assert triple(@host, "aarch64-apple-darwin23.4.0") == "aarch64-apple-darwin"
      assert triple(@host, "x86_64-apple-darwin19.6.0") == "x86_64-apple-darwin"
    end

    test "a host's build from source is native: no --target" do
      assert {:ok, %{cargo_target: nil, for: "this host, x86_64-pc-linux-gnu"}} =
               Target.pick(%{}, "x86_64-pc-linux-gnu")
    end

    test "TARGET_* variables without a cross build are not read, as on a plain host" do
      env = Map.put(@rpi4, "MIX_TARGET", "host")
      assert triple(env, "x86_64-pc-linux-gnu") == "x86_64-unknown-linux-musl"

      assert triple(Map.delete(@rpi4, "MIX_TARGET"), "x86_64-pc-linux-gnu") ==
               "x86_64-unknown-linux-musl"
    end

    test "an unknown architecture is an error that names it" do
      for arch <-
            ~w(riscv64-unknown-linux-gnu x86_64-unknown-freebsd14.0 arm-unknown-linux-gnueabi) do
        assert {:error, {:unknown_host, ^arch} = reason} = Target.pick(@host, arch)
        assert Target.message(reason) =~ "this host's architecture, #{arch}"
      end
    end
  end

  describe "a Nerves device's program" do
    test "rpi4 (aarch64, gnu) gets the aarch64 musl program, built with --target" do
      assert {:ok, pick} = Target.pick(@rpi4, "x86_64-pc-linux-gnu")
      assert pick.triple == "aarch64-unknown-linux-musl"
      assert pick.cargo_target == "aarch64-unknown-linux-musl"
      assert pick.for =~ "MIX_TARGET=rpi4 (TARGET_ARCH=aarch64, TARGET_OS=linux"
    end

    test "bbb (arm, gnueabihf, Cortex-A8) gets the ARMv7 program" do
      assert triple(@bbb, "x86_64-pc-linux-gnu") == "armv7-unknown-linux-gnueabihf"

      assert triple(Map.delete(@bbb, "TARGET_CPU"), "x86_64-pc-linux-gnu") ==
               "armv7-unknown-linux-gnueabihf"

      assert triple(Map.put(@bbb, "TARGET_ARCH", "armv7"), "x86_64-pc-linux-gnu") ==
               "armv7-unknown-linux-gnueabihf"
    end

    test "rpi0 (ARM11, ARMv6) does not get the ARMv7 program" do
      assert triple(@rpi0, "x86_64-pc-linux-gnu") == "arm-unknown-linux-gnueabihf"
    end

    test "an x86_64 device gets the x86_64 musl program" do
      env = %{@rpi4 | "TARGET_ARCH" => "x86_64", "MIX_TARGET" => "x86_64"}
      assert triple(env, "aarch64-apple-darwin23.4.0") == "x86_64-unknown-linux-musl"
    end

    test "a device the variables do not describe well enough is an error that quotes them" do
      for env <- [
            %{@bbb | "TARGET_ABI" => "gnueabi"},
            %{@rpi4 | "TARGET_ARCH" => "riscv64"},
            %{@rpi4 | "TARGET_OS" => "darwin"},
            %{@bbb | "TARGET_CPU" => "arm926ej_s"}
          ] do
        assert {:error, {:unknown_target, described} = reason} =
                 Target.pick(env, "x86_64-pc-linux-gnu")

        assert described =~ "TARGET_ARCH=#{env["TARGET_ARCH"]}"
        assert Target.message(reason) =~ "no port program for MIX_TARGET=#{env["MIX_TARGET"]}"
      end
    end

    test "a cross build without TARGET_ARCH or TARGET_OS is an error, not the host's program" do
      for missing <- ~w(TARGET_ARCH TARGET_OS) do
        assert {:error, {:no_target_arch, "rpi4"} = reason} =
                 Target.pick(Map.delete(@rpi4, missing), "x86_64-pc-linux-gnu")

        assert Target.message(reason) =~ "MIX_TARGET=rpi4 is a cross build"
      end
    end
  end

  describe "PUNCTUAL_TARGET" do
    test "wins over the host and over a cross build, and is built with --target" do
      for env <- [%{}, @host, @rpi4] do
        env = Map.put(env, "PUNCTUAL_TARGET", "x86_64-pc-windows-gnu")

        assert {:ok, %{triple: "x86_64-pc-windows-gnu", cargo_target: "x86_64-pc-windows-gnu"}} =
                 Target.pick(env, "aarch64-unknown-linux-gnu")
      end
    end

    test "names a triple also where punctual knows no host" do
      env = %{"PUNCTUAL_TARGET" => "riscv64gc-unknown-linux-gnu"}
      assert triple(env, "riscv64-unknown-linux-gnu") == "riscv64gc-unknown-linux-gnu"
    end

    test "that is not a triple is an error, and no path into the package" do
      for value <- ["../../etc", "x86_64", "X86_64-Unknown-Linux-Musl", "a b-c"] do
        assert {:error, {:invalid_target, ^value} = reason} =
                 Target.pick(%{"PUNCTUAL_TARGET" => value}, "x86_64-pc-linux-gnu")

        assert Target.message(reason) =~ "PUNCTUAL_TARGET=#{value} is not a Rust target triple"
      end
    end

    test "empty is unset" do
      assert triple(%{"PUNCTUAL_TARGET" => ""}, "aarch64-unknown-linux-gnu") ==
               "aarch64-unknown-linux-musl"
    end
  end

  describe "prebuilt or cargo" do
    test "the carried program for the triple, unless PUNCTUAL_BUILD asks for a build" do
      assert {:ok, {:prebuilt, %{triple: "aarch64-unknown-linux-musl"}}} =
               Target.plan(@rpi4, "x86_64-pc-linux-gnu", @release)

      for yes <- ~w(1 true) do
        assert {:ok, {:cargo, %{cargo_target: "aarch64-unknown-linux-musl"}, :asked}} =
                 Target.plan(
                   Map.put(@rpi4, "PUNCTUAL_BUILD", yes),
                   "x86_64-pc-linux-gnu",
                   @release
                 )
      end

      for no <- ["0", "false", ""] do
        assert {:ok, {:prebuilt, _}} =
                 Target.plan(
                   Map.put(@rpi4, "PUNCTUAL_BUILD", no),
                   "x86_64-pc-linux-gnu",
                   @release
                 )
      end
    end

    test "cargo when the package carries no program for the triple" do
      assert {:ok, {:cargo, %{triple: "x86_64-unknown-linux-musl"}, :not_carried}} =
               Target.plan(@host, "x86_64-pc-linux-gnu", [])

      assert {:ok, {:cargo, %{triple: "arm-unknown-linux-gnueabihf"}, :not_carried}} =
               Target.plan(@rpi0, "x86_64-pc-linux-gnu", @release)
    end

    test "an unknown host builds its native program with cargo" do
      assert {:ok, {:cargo, %{triple: nil, cargo_target: nil, for: for}, :not_carried}} =
               Target.plan(@host, "riscv64-unknown-linux-gnu", @release)

      assert for == "this host, riscv64-unknown-linux-gnu"
    end

    test "an unknown device or a bad PUNCTUAL_BUILD stops the compile" do
      assert {:error, {:unknown_target, _}} =
               Target.plan(%{@rpi4 | "TARGET_ARCH" => "mips"}, "x86_64-pc-linux-gnu", @release)

      assert {:error, {:invalid_build, "yes"} = reason} =
               Target.plan(%{"PUNCTUAL_BUILD" => "yes"}, "x86_64-pc-linux-gnu", @release)

      assert Target.message(reason) =~ "PUNCTUAL_BUILD=yes: give 1 or true"
    end
  end

  describe "a program the user names" do
    test "the :port_path setting, then PUNCTUAL_PORT, as Punctual.Binary takes them" do
      assert Target.configured("/dev/a", %{"PUNCTUAL_PORT" => "/dev/b"}) == {:port_path, "/dev/a"}
      assert Target.configured(nil, %{"PUNCTUAL_PORT" => "/dev/b"}) == {:env, "/dev/b"}
      assert Target.configured("", %{"PUNCTUAL_PORT" => "/dev/b"}) == {:env, "/dev/b"}
    end

    test "none, or only empty ones: the compiler installs its own" do
      assert Target.configured(nil, %{}) == nil
      assert Target.configured("", %{"PUNCTUAL_PORT" => ""}) == nil
    end
  end
end
