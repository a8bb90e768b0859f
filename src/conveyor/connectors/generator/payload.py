"""What a generated value looks like: a fixed-width ``task:seqno:`` header, then seeded padding.

Every value is ASCII and exactly ``record.size`` bytes long, so it is the same size as a string and
as bytes. The header makes a value read back from a topic say which task and sequence number it was.
"""

from __future__ import annotations

import math
import random
import string

TASK_DIGITS = 4
SEQNO_DIGITS = 15
MAX_TASKS = 10**TASK_DIGITS
HEADER_LENGTH = TASK_DIGITS + 1 + SEQNO_DIGITS + 1
KEY_TEMPLATE = "key-%d"

_PADDING_ALPHABET = string.ascii_letters + string.digits
_SEPARATOR = ":"
_SEQNO_START = TASK_DIGITS + 1
_SEQNO_END = _SEQNO_START + SEQNO_DIGITS
_TAILS_BYTES = 1 << 20
"""About how much text a task's precomputed value tails may take."""
_MAX_TAIL_DIGITS = 4


def value_template(seed: int, task: int, record_size: int) -> str:
    """A ``%``-template whose only field is the sequence number; ``template % seqno`` is one value."""
    padding_length = record_size - HEADER_LENGTH
    padding = "".join(random.Random(f"{seed}/{task}").choices(_PADDING_ALPHABET, k=padding_length))
    return f"{task:0{TASK_DIGITS}d}{_SEPARATOR}%0{SEQNO_DIGITS}d{_SEPARATOR}{padding}"


class ValueColumn:
    """The values of a run of sequence numbers, each ``value_template(...) % seqno``, at the cost of one
    concatenation a value rather than a format: a value is a head (task and high digits) shared by up to
    ``10**k`` consecutive values, and one of ``10**k`` precomputed tails (low digits and padding), ``k``
    chosen so that the tails take about a megabyte at most."""

    def __init__(self, seed: int, task: int, record_size: int) -> None:
        prefix, suffix = value_template(seed, task, record_size).split(f"%0{SEQNO_DIGITS}d")
        fitting = math.floor(math.log10(max(1, _TAILS_BYTES // record_size)))
        self._tail_digits = max(0, min(_MAX_TAIL_DIGITS, fitting))
        self._prefix = prefix
        digits = self._tail_digits
        self._tails = [f"{low:0{digits}d}{suffix}" for low in range(10**digits)] if digits else [suffix]

    def between(self, start: int, stop: int) -> list[str]:
        """The values of sequence numbers ``start`` to ``stop - 1``."""
        span = len(self._tails)
        head_digits = SEQNO_DIGITS - self._tail_digits
        values: list[str] = []
        seqno = start
        while seqno < stop:
            high, low = divmod(seqno, span)
            end = min(stop, (high + 1) * span)
            head = f"{self._prefix}{high:0{head_digits}d}"
            values += map(head.__add__, self._tails[low : low + end - seqno])
            seqno = end
        return values


def generated_value(seed: int, task: int, seqno: int, record_size: int) -> str:
    """The value task ``task`` generates for ``seqno``."""
    return value_template(seed, task, record_size) % seqno


def generated_key(seqno: int, key_cardinality: int) -> str | None:
    """The key of ``seqno``'s record: one of ``key_cardinality`` strings, or none when that is 0."""
    return KEY_TEMPLATE % (seqno % key_cardinality) if key_cardinality else None


def parse_header(value: bytes | str) -> tuple[int, int] | None:
    """The (task, seqno) a generated value starts with, or ``None`` if it is not a generated value."""
    if isinstance(value, bytes | bytearray | memoryview):
        value = bytes(value[:HEADER_LENGTH]).decode("ascii", "replace")
    if len(value) < HEADER_LENGTH or value[TASK_DIGITS] != _SEPARATOR or value[_SEQNO_END] != _SEPARATOR:
        return None
    task_digits, seqno_digits = value[:TASK_DIGITS], value[_SEQNO_START:_SEQNO_END]
    if not (task_digits.isdigit() and seqno_digits.isdigit()):
        return None
    return int(task_digits), int(seqno_digits)
