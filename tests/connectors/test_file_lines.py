"""LineBuffer: complete lines out, byte positions tracked, partial lines held back."""

from conveyor.connectors.file.lines import Line, LineBuffer


def test_lines_end_at_newline_with_the_position_after_the_terminator() -> None:
    buffer = LineBuffer()
    buffer.feed(b"one\ntwo\n")
    assert buffer.take(10) == [Line("one", 4), Line("two", 8)]


def test_crlf_and_lone_cr_both_end_a_line() -> None:
    buffer = LineBuffer()
    buffer.feed(b"a\r\nb\rc\n")
    assert buffer.take(10) == [Line("a", 3), Line("b", 5), Line("c", 7)]


def test_a_trailing_cr_waits_to_see_whether_a_newline_follows() -> None:
    buffer = LineBuffer()
    buffer.feed(b"a\r")
    assert buffer.take(10) == []
    buffer.feed(b"\nb\n")
    assert buffer.take(10) == [Line("a", 3), Line("b", 5)]


def test_an_unterminated_tail_is_emitted_once_completed() -> None:
    buffer = LineBuffer()
    buffer.feed(b"hel")
    assert buffer.take(10) == []
    buffer.feed(b"lo\n")
    assert buffer.take(10) == [Line("hello", 6)]


def test_positions_count_bytes_not_characters() -> None:
    buffer = LineBuffer()
    buffer.feed("héllo\n€\n".encode())
    assert buffer.take(10) == [Line("héllo", 7), Line("€", 11)]


def test_positions_continue_from_the_start_position() -> None:
    buffer = LineBuffer(start_position=100)
    buffer.feed(b"x\n")
    assert buffer.take(1) == [Line("x", 102)]


def test_take_hands_out_at_most_the_limit_and_keeps_the_rest_in_order() -> None:
    buffer = LineBuffer()
    buffer.feed(b"1\n2\n3\n")
    assert [line.text for line in buffer.take(2)] == ["1", "2"]
    assert [line.text for line in buffer.take(2)] == ["3"]
