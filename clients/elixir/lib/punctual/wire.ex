defmodule Punctual.Wire do
  @moduledoc false
  # The port's protocols on the wire; docs/port-protocol.md in the repository has the
  # layout byte by byte. Frames ({:packet, 2}) are the port driver's business: these are
  # payloads.

  # Durations and deadlines are signed 64-bit on the wire. Punctual checks callers' values
  # against this first (Punctual.Request); a value past the range here is a bug, and fails
  # rather than being truncated.
  defguard is_i64(ns)
           when is_integer(ns) and ns >= -0x8000_0000_0000_0000 and ns <= 0x7FFF_FFFF_FFFF_FFFF

  # Protocol 1: one signed 64-bit request, one unsigned 64-bit answer.
  def p1_request(ns) when is_i64(ns), do: <<ns::signed-64>>

  # Protocol 2 requests.
  def wake_after(id, ns, spin) when is_i64(ns),
    do: <<0x01, id::64, ns::signed-64, spin(spin)::32>>

  def wake_at(id, deadline, spin) when is_i64(deadline),
    do: <<0x02, id::64, deadline::signed-64, spin(spin)::32>>

  def cancel(id), do: <<0x03, id::64>>
  def now(id), do: <<0x04, id::64>>
  def timer_info(id), do: <<0x05, id::64>>
  def probe(id, samples), do: <<0x06, id::64, samples::32>>

  # VERDICT: the costs timed in the BEAM, `{request_ms, mean_ns}`, at most 255 of them.
  def verdict(id, floor_ns, costs) when length(costs) <= 255 do
    body = for {request_ms, mean_ns} <- costs, into: <<>>, do: <<request_ms::32, mean_ns::64>>
    <<0x07, id::64, floor_ns::64, length(costs), body::binary>>
  end

  def cheat_sheet(id, quantum_ns, bands), do: <<0x08, id::64, quantum_ns::64, bands::16>>

  # A spin tail is a u32 on the wire: at most about 4.29 s.
  @max_spin 0xFFFFFFFF
  defp spin(ns) when is_integer(ns) and ns >= 0 and ns <= @max_spin, do: ns

  defp spin(ns),
    do: raise(ArgumentError, "port_spin: must be 0..#{@max_spin} ns, got: #{inspect(ns)}")

  @doc false
  def max_spin, do: @max_spin

  # Protocol 2 answers: every message of a frame, in order.
  def answers(payload), do: answers(payload, [])

  defp answers(<<>>, acc), do: Enum.reverse(acc)

  defp answers(<<0x81, id::64, deadline::signed-64, lateness::64, rest::binary>>, acc),
    do: answers(rest, [{:woke, id, deadline, lateness} | acc])

  defp answers(<<0x82, id::64, now::signed-64, rest::binary>>, acc),
    do: answers(rest, [{:clock, id, now} | acc])

  defp answers(<<0x83, id::64, pending, rest::binary>>, acc),
    do: answers(rest, [{:cancelled, id, pending == 1} | acc])

  # TIMER: its header gives the length of the text after it.
  defp answers(
         <<0x84, id::64, high_resolution, resolution::64, slack::64, m::16, d::16,
           mechanism::binary-size(m), degraded::binary-size(d), rest::binary>>,
         acc
       )
       when high_resolution in [0, 1] do
    timer = %{
      mechanism: mechanism,
      high_resolution: high_resolution == 1,
      resolution_ns: reported(resolution),
      timer_slack_ns: reported(slack),
      degraded: if(degraded == "", do: nil, else: degraded)
    }

    answers(rest, [{:timer, id, timer} | acc])
  end

  # PROBED: its header gives the count of costs and the length of the primitive's name.
  defp answers(
         <<0x85, id::64, quantum::64, overshoot::64, floor::64, n, t, costs::binary-size(n * 12),
           primitive::binary-size(t), rest::binary>>,
         acc
       ) do
    probe = %{
      primitive: if(primitive == "", do: nil, else: primitive),
      quantum_ns: reported(quantum),
      overshoot_ns: reported(overshoot),
      floor_ns: floor,
      costs: for(<<ms::32, mean::64 <- costs>>, do: %{request_ms: ms, mean_ns: mean})
    }

    answers(rest, [{:probed, id, probe} | acc])
  end

  # SHEET: its header gives the count of bands.
  defp answers(<<0x86, id::64, n::16, bands::binary-size(n * 28), rest::binary>>, acc) do
    bands =
      for <<k::32, request_ms::64, cost_ns::64, rate_hz::float-64 <- bands>>,
        do: %{k: k, request_ms: request_ms, cost_ns: cost_ns, rate_hz: rate_hz}

    answers(rest, [{:sheet, id, bands} | acc])
  end

  defp answers(<<0xEE, reason, 1, id::64, rest::binary>>, acc),
    do: answers(rest, [{:error, reason(reason), id} | acc])

  defp answers(<<0xEE, reason, 0, _::64, rest::binary>>, acc),
    do: answers(rest, [{:error, reason(reason), nil} | acc])

  defp answers(rest, acc), do: Enum.reverse([{:malformed, rest} | acc])

  # A duration the OS does not report is u64::MAX on the wire.
  defp reported(0xFFFF_FFFF_FFFF_FFFF), do: nil
  defp reported(ns), do: ns

  defp reason(1), do: :empty_frame
  defp reason(2), do: :unknown_kind
  defp reason(3), do: :truncated
  defp reason(4), do: :duplicate_id
  defp reason(5), do: :too_many_pending
  defp reason(6), do: :out_of_range
  defp reason(7), do: :probe_busy
  defp reason(8), do: :probe_failed
  defp reason(code), do: {:unknown, code}
end
