defmodule Punctual.Binary do
  @moduledoc false
  # Finds the punctual-port program: `open(path: ...)`, then the :port_path application
  # setting, then the PUNCTUAL_PORT environment variable, then the one `mix compile`
  # installed into this build's priv/ (mix/compile.punctual_port.exs, which installs
  # nothing when :port_path or PUNCTUAL_PORT is set: Target.configured/2, the same order).
  # A program named but missing is an error, not a reason to try the next.

  def path(opts) do
    explicit =
      opts[:path] || non_empty(Application.get_env(:punctual, :port_path)) ||
        non_empty(System.get_env("PUNCTUAL_PORT"))

    path = explicit || built()
    if File.regular?(path), do: {:ok, path}, else: {:error, {:no_port_program, path}}
  end

  defp built do
    case :code.priv_dir(:punctual) do
      {:error, :bad_name} -> Path.join(["priv", program()])
      priv -> Path.join(List.to_string(priv), program())
    end
  end

  defp non_empty(""), do: nil
  defp non_empty(value), do: value

  defp program,
    do: if(match?({:win32, _}, :os.type()), do: "punctual-port.exe", else: "punctual-port")
end
