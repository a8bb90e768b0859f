"""JSON text for single values, written exactly as Kafka's Jackson-based ``JsonConverter`` writes it.

Jackson differs from Python's ``json`` in three places that matter for byte-for-byte compatibility:
doubles use Java's ``Double.toString`` (``1.0E7`` rather than ``10000000.0``), float32 values use the
shortest digits that identify the float32, and NaN and infinities are written as quoted strings.
Strings are UTF-8 with only ``"``, ``\\`` and control characters escaped (upper-case hex).
"""

from __future__ import annotations

import base64
import math
import struct
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Final

_NON_FINITE: Final = {math.inf: '"Infinity"', -math.inf: '"-Infinity"'}
_FLOAT32_MAX: Final = struct.unpack(">f", b"\x7f\x7f\xff\xff")[0]


def json_string(text: str) -> str:
    """``text`` as a quoted JSON string, escaped as Jackson escapes it."""
    quoted: str = encode_basestring(text)
    if "\\u00" in quoted:
        return _upper_case_hex_escapes(quoted)
    return quoted


def _upper_case_hex_escapes(quoted: str) -> str:
    pieces = quoted.split("\\u00")
    return pieces[0] + "".join("\\u00" + piece[:2].upper() + piece[2:] for piece in pieces[1:])


def json_bytes(data: bytes | bytearray | memoryview) -> str:
    """Bytes as Jackson writes a binary node: a quoted, padded, standard base64 string."""
    return '"' + base64.b64encode(data).decode("ascii") + '"'


def java_double(number: float) -> str:
    """``number`` as Java's ``Double.toString`` writes it (plain from 1e-3 up to 1e7, else ``d.dddEn``)."""
    if number != number:
        return '"NaN"'
    if number in _NON_FINITE:
        return _NON_FINITE[number]
    magnitude = abs(number)
    if magnitude == 0.0 or 1e-3 <= magnitude < 1e7:
        return repr(float(number))
    return _java_scientific(repr(float(number)))


def java_float(number: float) -> str:
    """``number`` as Java's ``Float.toString`` writes the float32 nearest to it."""
    if number != number:
        return '"NaN"'
    if number in _NON_FINITE or abs(number) > _FLOAT32_MAX:
        return _NON_FINITE[math.copysign(math.inf, number)]
    nearest = to_float32(number)
    digits = _shortest_float32_digits(nearest)
    magnitude = abs(nearest)
    if magnitude == 0.0 or 1e-3 <= magnitude < 1e7:
        return repr(float(digits))
    return _java_scientific(digits)


def to_float32(number: float) -> float:
    """The float32 nearest to ``number`` (infinite when beyond float32's range), as Java's ``floatValue``."""
    try:
        rounded: float = struct.unpack(">f", struct.pack(">f", number))[0]
    except OverflowError:
        return math.copysign(math.inf, number)
    return rounded


def _shortest_float32_digits(number: float) -> str:
    for precision in range(1, 10):
        candidate = f"{number:.{precision}g}"
        if to_float32(float(candidate)) == number:
            return candidate
    return repr(number)


def _java_scientific(shortest: str) -> str:
    sign, digits, exponent = Decimal(shortest).normalize().as_tuple()
    assert isinstance(exponent, int)
    significant = "".join(map(str, digits))
    adjusted = exponent + len(significant) - 1
    fraction = significant[1:] or "0"
    return f"{'-' if sign else ''}{significant[0]}.{fraction}E{adjusted}"
