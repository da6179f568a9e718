defmodule Punctual.Tick do
  @moduledoc """
  One tick of a ticker (`Punctual.ticker/3`), as `Punctual.tick/2` reports it.

    * `:index` - its number on the grid: tick `k` is due `first + k * period` (until a
      `:delay` policy moves the grid).
    * `:deadline` - when it was due, a `System.monotonic_time(:nanosecond)`.
    * `:lateness_ns` - how late it was handed over, by the BEAM's clock; never negative.
    * `:missed` - the grid points that passed without a tick just before this one.
  """

  @enforce_keys [:index, :deadline, :lateness_ns, :missed]
  defstruct @enforce_keys

  @type t :: %__MODULE__{
          index: non_neg_integer,
          deadline: integer,
          lateness_ns: non_neg_integer,
          missed: non_neg_integer
        }
end
