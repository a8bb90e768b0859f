"""Value conversions of the Cast transformation, with Java's narrowing, parsing and printing rules."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import re
from typing import Any

from conveyor.convert.json_text import to_float32
from conveyor.data import DataError, Type
from conveyor.data.logical import epoch_millis

SUPPORTED_INPUT_TYPES = tuple(kind for kind in Type if kind.is_primitive)
SUPPORTED_OUTPUT_TYPES = tuple(kind for kind in SUPPORTED_INPUT_TYPES if kind is not Type.BYTES)
_INTEGER_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
_EPOCH_DATE = dt.date(1970, 1, 1)


def _wrap(number: int, bits: int) -> int:
    """Two's complement narrowing, as a Java cast to a smaller integer type."""
    half = 1 << (bits - 1)
    return ((number + half) % (1 << bits)) - half


def _saturate_float(number: float, bits: int) -> int:
    """Java's float-to-int (``bits``=32) or float-to-long (64) conversion: truncate, NaN is 0, saturate."""
    if math.isnan(number):
        return 0
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if math.isinf(number):
        return high if number > 0 else low
    return max(low, min(high, math.trunc(number)))


def _as_java_integer(value: Any, bits: int) -> int:
    if isinstance(value, float):
        return _wrap(_saturate_float(value, 64 if bits == 64 else 32), bits)
    if isinstance(value, decimal.Decimal):
        return _wrap(int(value), bits)
    return _wrap(int(value), bits)


def _primitive_of_logical(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return epoch_millis(value)
    if isinstance(value, dt.date):
        return (value - _EPOCH_DATE).days
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return value


def _cast_to_integer(value: Any, target: Type) -> int:
    bits = _INTEGER_BITS[target]
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int | float | decimal.Decimal):
        return _as_java_integer(value, bits)
    if isinstance(value, str):
        if not _JAVA_INTEGER.fullmatch(value):
            raise DataError(f"Value ({value}) was out of range for requested data type")
        number = int(value)
        if _wrap(number, bits) != number:
            raise DataError(f"Value ({value}) was out of range for requested data type")
        return number
    raise DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _cast_to_float(value: Any, target: Type) -> float:
    if isinstance(value, bool):
        number = 1.0 if value else 0.0
    elif isinstance(value, int | float | decimal.Decimal):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().rstrip("fFdD"))
        except ValueError:
            raise DataError(f"Value ({value}) was out of range for requested data type") from None
    else:
        raise DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")
    return to_float32(number) if target is Type.FLOAT32 else number


def _cast_to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return _saturate_float(value, 64) != 0
    if isinstance(value, int | decimal.Decimal):
        return _wrap(int(value), 64) != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def java_float_text(number: float, single_precision: bool = False) -> str:
    """``number`` printed as Java's ``Double.toString`` (or ``Float.toString``) prints it."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    shortest = _shortest_repr(number, single_precision)
    sign, digits, exponent = decimal.Decimal(shortest).as_tuple()
    assert isinstance(exponent, int)
    magnitude = abs(number)
    text_digits = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exponent
    if magnitude == 0 or 1e-3 <= magnitude < 1e7:
        whole = text_digits[:point] if point > 0 else "0"
        fraction = text_digits[point:] if point > 0 else "0" * -point + text_digits
        whole = whole.ljust(point, "0") if point > 0 else whole
        body = f"{whole}.{fraction.rstrip('0') or '0'}"
    else:
        body = f"{text_digits[0]}.{text_digits[1:] or '0'}E{point - 1}"
    return ("-" if sign else "") + body


def _shortest_repr(number: float, single_precision: bool) -> str:
    if not single_precision:
        return repr(number)
    for precision in range(1, 10):
        text = f"{number:.{precision}g}"
        if to_float32(float(text)) == number:
            return text
    return repr(number)


def _cast_to_string(value: Any, source: Type | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if isinstance(value, dt.date):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, dt.time):
        return value.strftime("%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, float):
        return java_float_text(value, single_precision=source is Type.FLOAT32)
    return str(value)


def check_input_type(source: Type) -> None:
    """Fail for a source type Cast cannot read (arrays, maps and structs)."""
    if source not in SUPPORTED_INPUT_TYPES:
        supported = ", ".join(t.name for t in SUPPORTED_INPUT_TYPES)
        raise DataError(
            f"Cast transformation does not support casting from {source.name}; "
            f"supported types are {supported}"
        )


def cast_value(value: Any, source: Type | None, target: Type) -> Any:
    """``value`` (of Connect type ``source``, or inferred when None) converted to Connect type ``target``."""
    if value is None:
        return None
    if source is not None:
        check_input_type(source)
    if target is Type.STRING:
        return _cast_to_string(value, source)
    value = _primitive_of_logical(value)
    if target in _INTEGER_BITS:
        return _cast_to_integer(value, target)
    if target is Type.BOOLEAN:
        return _cast_to_boolean(value)
    if target in (Type.FLOAT32, Type.FLOAT64):
        return _cast_to_float(value, target)
    raise DataError(f"{target.name} is not supported in the Cast transformation.")
