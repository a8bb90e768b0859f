"""Splitting a byte stream into lines while tracking the byte position after each one."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    """One complete line, without its terminator, and the stream position just after the terminator."""

    text: str
    end_position: int


class LineBuffer:
    """Accumulates chunks of a stream and hands out complete lines in order.

    Lines end with ``\\n``, ``\\r\\n`` or a lone ``\\r``, as Kafka's FileStreamSourceTask splits them. A
    trailing ``\\r`` is held back until the next byte shows whether a ``\\n`` follows, and an unterminated
    tail waits for more data, so a line is never emitted half-written.
    """

    def __init__(self, start_position: int = 0) -> None:
        self._lines: deque[Line] = deque()
        self._partial = b""
        self._partial_start = start_position

    def feed(self, chunk: bytes) -> None:
        """Add the next bytes read from the stream."""
        data = self._partial + chunk
        pieces = data.splitlines(keepends=True)
        position = self._partial_start
        complete = len(pieces)
        if pieces and not _is_terminated(pieces[-1]):
            complete -= 1
        for piece in pieces[:complete]:
            position += len(piece)
            self._lines.append(Line(_without_terminator(piece).decode("utf-8", "replace"), position))
        self._partial = b"".join(pieces[complete:])
        self._partial_start = position

    def take(self, limit: int) -> list[Line]:
        """Up to ``limit`` complete lines, oldest first; they are removed from the buffer."""
        count = min(limit, len(self._lines))
        return [self._lines.popleft() for _ in range(count)]


def _is_terminated(piece: bytes) -> bool:
    """Whether ``piece`` surely ends its line; a final lone ``\\r`` may still be followed by ``\\n``."""
    return piece.endswith(b"\n")


def _without_terminator(piece: bytes) -> bytes:
    if piece.endswith(b"\r\n"):
        return piece[:-2]
    return piece[:-1]
