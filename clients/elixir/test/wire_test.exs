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
    assert_raise ArgumentError, fn -> Wire.wake_after(1, 1, 4_294_967_296) end
    # Never truncated: Punctual checks first, and a value that gets here anyway fails.
    assert_raise FunctionClauseError, fn -> Wire.p1_request(2 ** 63) end
    assert_raise FunctionClauseError, fn -> Wire.wake_after(1, 2 ** 64 + 1_000, 0) end
    assert_raise FunctionClauseError, fn -> Wire.wake_at(1, -(2 ** 63) - 1, 0) end
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
