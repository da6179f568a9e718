defmodule Punctual.ServerTest do
  # The server decodes the port's protocol-2 answers with Wire.answers/1, the decoder
  # wire_test.exs checks byte by byte: a frame given to the running server does what that
  # decoding says, answer by answer, in order.
  use ExUnit.Case, async: true

  import ExUnit.CaptureLog

  alias Punctual.Wire

  # Pending for an hour: only the frame written here answers them.
  @hour 3_600_000_000_000

  test "a frame reaches the running server as Wire.answers/1 decodes it" do
    {:ok, sleeper} = Punctual.open(protocol: 2, realtime: false)
    {:ok, a} = Punctual.wake_after(sleeper, @hour)
    {:ok, b} = Punctual.wake_after(sleeper, @hour)
    {:ok, c} = Punctual.wake_after(sleeper, @hour)

    frame =
      <<0x81, a::64, 5::signed-64, 1_234::64>> <>
        <<0xEE, 4, 1, b::64>> <>
        <<0x82, 999::64, 42::signed-64>> <>
        <<0x83, 7::64, 0>> <>
        <<0x81, c::64, 6::signed-64, 99::64>> <>
        <<0x81, 1, 2>>

    assert Wire.answers(frame) == [
             {:woke, a, 5, 1_234},
             {:error, :duplicate_id, b},
             {:clock, 999, 42},
             {:cancelled, 7, false},
             {:woke, c, 6, 99},
             {:malformed, <<0x81, 1, 2>>}
           ]

    log =
      capture_log(fn ->
        # As the port delivers it: a message from the server's own port.
        send(sleeper.server, {sleeper.port, {:data, frame}})
        # Handled once a later call is answered.
        :sys.get_state(sleeper.server)
      end)

    events =
      for _ <- 1..3 do
        assert_receive message, 5_000
        Punctual.message(sleeper, message)
      end

    # Every answer after the clock answer for an id never sent is still acted on.
    assert events == [{:woke, a, 1_234}, {:error, b, :duplicate_id}, {:woke, c, 99}]
    assert log =~ "clock request 999 never sent"
    assert log =~ "unexpected bytes from the port: <<129, 1, 2>>"
    # The server took each entry: none is pending any more.
    for id <- [a, b, c], do: assert(Punctual.cancel(sleeper, id) == {:error, :not_pending})
    refute_received _
    Punctual.close(sleeper)
  end
end
