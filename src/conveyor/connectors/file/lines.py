"""Splitting a byte stream into lines while tracking the byte position after each one."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate, islice, repeat


@dataclass(frozen=True)
class Line:
    """One complete line, without its terminator, and the stream position just after the terminator."""

    text: str
    end_position: int


class LineBuffer:
    """Accumulates chunks of a stream and hands out complete lines in order.

    Lines end with ``\\n``, ``\\r\\n`` or a lone ``\\r``, as Kafka's FileStreamSourceTask splits them. A
    trailing ``\\r`` is held back until the next byte shows whether a ``\\n`` follows, and an unterminated
    tail waits for more data, so a line is never emitted half-written. A chunk is split, decoded and
    measured by C-level calls over all its lines at once: a file source reads millions of them.
    """

    def __init__(self, start_position: int = 0) -> None:
        self._texts: list[str] = []
        self._ends: list[int] = []
        self._partial = b""
        self._partial_start = start_position

    def feed(self, chunk: bytes) -> None:
        """Add the next bytes read from the stream."""
        data = self._partial + chunk
        pieces = data.splitlines(keepends=True)
        if pieces and not _is_terminated(pieces[-1]):
            self._partial = pieces.pop()
        else:
            self._partial = b""
        if not pieces:
            return
        complete = data[: len(data) - len(self._partial)]
        self._texts.extend(map(bytes.decode, complete.splitlines(), repeat("utf-8"), repeat("replace")))
        self._ends.extend(islice(accumulate(map(len, pieces), initial=self._partial_start), 1, None))
        self._partial_start = self._ends[-1]

    def take_columns(self, limit: int) -> tuple[list[str], list[int]]:
        """Up to ``limit`` complete lines, oldest first, as their texts and their end positions; they are
        removed from the buffer."""
        texts, ends = self._texts[:limit], self._ends[:limit]
        del self._texts[:limit], self._ends[:limit]
        return texts, ends

    def take(self, limit: int) -> list[Line]:
        """Up to ``limit`` complete lines, oldest first; they are removed from the buffer."""
        texts, ends = self.take_columns(limit)
        return [Line(text, end) for text, end in zip(texts, ends, strict=True)]


def _is_terminated(piece: bytes) -> bool:
    """Whether ``piece`` surely ends its line; a final lone ``\\r`` may still be followed by ``\\n``."""
    return piece.endswith(b"\n")
