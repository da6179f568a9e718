defmodule Punctual.WireTest do
  # The bytes of docs/port-protocol.md, written out by hand.
  use ExUnit.Case, async: true

  alias Punctual.Wire

  test "requests" do
    assert Wire.p1_request(1_000_000) == <<0, 0, 0, 0, 0, 0x0F, 0x42, 0x40>>
    assert Wire.p1_request(-1) == <<0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF>>

    assert Wire.wake_at(42, 1_000_000_000, 250_000) ==
             <<0x02, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0, 0x3B, 0x9A, 0xCA, 0x00, 0x00, 0x03,
               0xD0, 0x90>>

    assert Wire.wake_after(1, -1, 0) ==
             <<0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0,
               0, 0>>

    assert Wire.cancel(7) == <<0x03, 0, 0, 0, 0, 0, 0, 0, 7>>
    assert Wire.now(0x0102030405060708) == <<0x04, 1, 2, 3, 4, 5, 6, 7, 8>>
    assert Wire.timer_info(6) == <<0x05, 0, 0, 0, 0, 0, 0, 0, 6>>
    assert Wire.probe(6, 5) == <<0x06, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 5>>

    assert Wire.verdict(7, 256, [{1, 2}]) ==
             <<0x07, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0,
               0, 0, 2>>

    assert Wire.cheat_sheet(8, 15_625_000, 10) ==
             <<0x08, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0xEE, 0x6B, 0x28, 0, 10>>

    assert_raise ArgumentError, fn -> Wire.wake_after(1, 1, 4_294_967_296) end
    # Never truncated: Punctual checks first, and a value that gets here anyway fails.
    assert_raise FunctionClauseError, fn -> Wire.p1_request(2 ** 63) end
    assert_raise FunctionClauseError, fn -> Wire.wake_after(1, 2 ** 64 + 1_000, 0) end
    assert_raise FunctionClauseError, fn -> Wire.wake_at(1, -(2 ** 63) - 1, 0) end
  end

  test "a probe's answers" do
    none = <<0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF>>

    probed =
      <<0x85, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xEE, 0x6B, 0x28>> <>
        none <> <<15_601_200::64, 1, 2, 1::32, 15_624_800::64, "hi">>

    sheet = <<0x86, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 1::32, 8::64, 15_625_000::64, 64.0::float-64>>

    assert Wire.answers(probed <> sheet) == [
             {:probed, 1,
              %{
                primitive: "hi",
                quantum_ns: 15_625_000,
                overshoot_ns: nil,
                floor_ns: 15_601_200,
                costs: [%{request_ms: 1, mean_ns: 15_624_800}]
              }},
             {:sheet, 2, [%{k: 1, request_ms: 8, cost_ns: 15_625_000, rate_hz: 64.0}]}
           ]

    assert [{:error, :out_of_range, 3}, {:error, :probe_busy, 4}] =
             Wire.answers(<<0xEE, 6, 1, 3::64, 0xEE, 7, 1, 4::64>>)
  end

  test "answers, several to a frame" do
    frame =
      <<0x82, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0x3B, 0x8B, 0x87, 0xC0>> <>
        <<0x81, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0, 0x3B, 0x9A, 0xCA, 0x00, 0, 0, 0, 0, 0, 0,
          0x01,
          0xF4>> <>
        <<0x83, 0, 0, 0, 0, 0, 0, 0, 7, 1>> <>
        <<0xEE, 2, 1, 0, 0, 0, 0, 0, 0, 0, 5>> <>
        <<0xEE, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>>

    assert Wire.answers(frame) == [
             {:clock, 0x0102030405060708, 999_000_000},
             {:woke, 42, 1_000_000_000, 500},
             {:cancelled, 7, true},
             {:error, :unknown_kind, 5},
             {:error, :empty_frame, nil}
           ]

    assert Wire.answers(<<0x81, 1, 2>>) == [{:malformed, <<0x81, 1, 2>>}]

    none = <<0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF>>

    timers =
      <<0x84, 0, 0, 0, 0, 0, 0, 0, 6, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0,
        0,
        "futex">> <>
        <<0x84, 0, 0, 0, 0, 0, 0, 0, 7, 0>> <>
        none <> none <> <<0, 1, 0, 2, "s", "no">> <> <<0x82, 0, 0, 0, 0, 0, 0, 0, 1, 0::64>>

    assert Wire.answers(timers) == [
             {:timer, 6,
              %{
                mechanism: "futex",
                high_resolution: true,
                resolution_ns: 1,
                timer_slack_ns: 0,
                degraded: nil
              }},
             {:timer, 7,
              %{
                mechanism: "s",
                high_resolution: false,
                resolution_ns: nil,
                timer_slack_ns: nil,
                degraded: "no"
              }},
             {:clock, 1, 0}
           ]

    # Its text cut short by the end of the frame.
    cut = <<0x84, 0::64, 1, 0::64, 0::64, 0, 9, 0, 0, "fut">>
    assert Wire.answers(cut) == [{:malformed, cut}]
  end
end
