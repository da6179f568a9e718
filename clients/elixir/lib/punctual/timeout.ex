defmodule Punctual.Timeout do
  @moduledoc false
  # A blocking call's timeout as the moment it gives up: `give_up_at`, nanoseconds on the
  # BEAM's monotonic clock (or :infinity), fixed when the call starts so that everything
  # the call does, the wait for the answer and the spin after it, fits inside it.

  # The longest `receive ... after` (ms); longer timeouts wait in steps of it.
  @max_after_ms 0xFFFF_FFFF

  def give_up_at(:infinity), do: :infinity
  def give_up_at(timeout_ms), do: System.monotonic_time(:nanosecond) + timeout_ms * 1_000_000

  # Whether a call can still meet `deadline` before it gives up.
  def reachable?(_deadline, :infinity), do: true
  def reachable?(deadline, give_up_at), do: deadline <= give_up_at

  def passed?(give_up_at), do: ms_left(give_up_at) == 0

  # How long the next `receive` waits: what is left (rounded up to whole milliseconds, so
  # never short of it), at most one `after`'s worth.
  def step_ms(give_up_at) do
    case ms_left(give_up_at) do
      :infinity -> :infinity
      ms -> min(ms, @max_after_ms)
    end
  end

  # Waits, not busy, until `give_up_at`.
  def wait_until(give_up_at) do
    case step_ms(give_up_at) do
      0 ->
        :ok

      ms ->
        receive do
        after
          ms -> wait_until(give_up_at)
        end
    end
  end

  defp ms_left(:infinity), do: :infinity

  defp ms_left(give_up_at),
    do: max(div(give_up_at - System.monotonic_time(:nanosecond) + 999_999, 1_000_000), 0)
end
