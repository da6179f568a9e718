defmodule Punctual.Binary do
  @moduledoc false
  # Finds the punctual-port program: `open(path: ...)`, then the :port_path application
  # setting, then the PUNCTUAL_PORT environment variable, then the release build in the
  # repository this package was compiled in (which `mix compile` builds with cargo).

  @repo_root Path.expand("../../../..", __DIR__)

  def path(opts) do
    explicit =
      opts[:path] || Application.get_env(:punctual, :port_path) ||
        non_empty(System.get_env("PUNCTUAL_PORT"))

    case explicit do
      nil -> built()
      path -> if File.regular?(path), do: {:ok, path}, else: {:error, {:no_port_program, path}}
    end
  end

  defp built do
    path = Path.join([@repo_root, "target", "release", "punctual-port" <> exe()])

    if File.regular?(path),
      do: {:ok, path},
      else: {:error, {:no_port_program, path}}
  end

  defp non_empty(""), do: nil
  defp non_empty(value), do: value

  defp exe, do: if(match?({:win32, _}, :os.type()), do: ".exe", else: "")
end
