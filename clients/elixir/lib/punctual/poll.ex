defmodule Punctual.Poll do
  @moduledoc false
  # `Punctual.poll_until/3`: `crates/punctual/src/poll.rs`'s `Poller::until` on the port.
  # Check, and if the condition is unmet and the deadline has not passed (by the BEAM's
  # clock, read after the check), run the hook and sleep a step, cut short to end at the
  # deadline. So the condition is checked once more at the deadline before a timeout is
  # reported, a timeout never comes before the deadline, and it comes within the deadline
  # plus one check.

  alias Punctual.Options

  @options Options.spec(%{
             timeout: {nil, :timeout},
             deadline: {nil, :integer},
             step: {1_000_000, :non_neg},
             before_sleep: {nil, :hook}
           })

  def until(%Punctual{} = sleeper, condition, opts) do
    start = System.monotonic_time(:nanosecond)

    with :ok <- condition(condition),
         {:ok, o} <- Options.check(opts, @options),
         {:ok, deadline} <- deadline(o, start) do
      poll(%{sleeper: sleeper, condition: condition, start: start, deadline: deadline, o: o}, 0)
    end
  end

  defp condition(condition) when is_function(condition, 0), do: :ok
  defp condition(condition), do: Options.invalid(:condition, condition)

  # Neither option: no deadline, as `timeout: :infinity`, and as Lua's and Python's
  # `poll_until` without a timeout. The loop then ends only when the condition is met or
  # fails.
  defp deadline(%{timeout: nil, deadline: nil}, _start), do: {:ok, :infinity}
  defp deadline(%{timeout: nil, deadline: deadline}, _start), do: {:ok, deadline}
  defp deadline(%{deadline: nil, timeout: :infinity}, _start), do: {:ok, :infinity}
  defp deadline(%{deadline: nil, timeout: ms}, start), do: {:ok, start + ms * 1_000_000}
  defp deadline(%{deadline: deadline}, _start), do: Options.invalid(:deadline, deadline)

  defp poll(p, polls) do
    polls = polls + 1

    case p.condition.() do
      unmet when unmet in [nil, false] -> next(p, polls)
      {:error, _reason} = failed -> failed
      {:ok, _value} = met -> met
      value -> {:ok, value}
    end
  end

  defp next(p, polls) do
    now = System.monotonic_time(:nanosecond)
    step_end = now + p.o.step

    if p.deadline != :infinity and now >= p.deadline do
      {:error, {:timeout, now - p.start, polls}}
    else
      {wake_at, limit} =
        if p.deadline != :infinity and p.deadline < step_end,
          do: {p.deadline, if(p.o.deadline, do: :deadline, else: :timeout)},
          else: {step_end, :step}

      if p.o.before_sleep, do: p.o.before_sleep.()

      case sleep_until(p.sleeper, wake_at) do
        :ok -> poll(p, polls)
        # Past what the wire carries: the option that put it there.
        {:error, {:invalid, :deadline, _}} -> Options.invalid(limit, Map.fetch!(p.o, limit))
        {:error, reason} -> {:error, reason}
      end
    end
  end

  defp sleep_until(sleeper, wake_at) do
    if wake_at > System.monotonic_time(:nanosecond) do
      with {:ok, _late} <- Punctual.sleep_until(sleeper, wake_at), do: :ok
    else
      :ok
    end
  end
end
