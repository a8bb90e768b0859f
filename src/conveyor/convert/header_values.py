"""Header values as text and back, after Connect's ``Values`` rules, for ``SimpleHeaderConverter``.

Writing: strings as they are, booleans ``true``/``false``, numbers as Java prints them, bytes as
base64, Decimal as its plain text, Date/Time/Timestamp as ISO-8601 in UTC, and arrays, maps and structs
as JSON. Reading infers the narrowest schema: ``true``/``false`` -> BOOLEAN; integers -> INT8, INT16,
INT32 or INT64, whichever fits first (larger ones -> Decimal of scale 0); other finite numbers ->
FLOAT32 when the float32 keeps the value finite, as Connect does, else FLOAT64; ``yyyy-MM-dd`` -> Date,
``HH:mm:ss.SSSZ`` -> Time, ``yyyy-MM-ddTHH:mm:ss.SSSZ`` -> Timestamp; JSON arrays and objects -> schema-less
lists and dicts; anything else -> STRING.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import math
import re
from collections.abc import Callable
from typing import Any, Final

from conveyor.convert.json_text import java_double, java_float, to_float32
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    Struct,
    Time,
    Timestamp,
    Type,
)

_INTEGER_SCHEMAS: Final = (
    (INT8_SCHEMA, 2**7),
    (INT16_SCHEMA, 2**15),
    (INT32_SCHEMA, 2**31),
    (INT64_SCHEMA, 2**63),
)
_INTEGER: Final = re.compile(r"[+-]?\d+")
_NUMBER: Final = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME: Final = re.compile(r"\d{2}:\d{2}:\d{2}\.\d{3}Z")
_TIMESTAMP: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def value_to_text(schema: Schema | None, value: Any) -> str:
    """The header text of ``value``."""
    if isinstance(value, str):
        return value
    if schema is not None and schema.name in _LOGICAL_WRITERS:
        return _LOGICAL_WRITERS[schema.name](value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_float(value) if schema is not None and schema.type is Type.FLOAT32 else java_double(value)
    if isinstance(value, int | decimal.Decimal):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(value).decode("ascii")
    return json.dumps(_jsonable(value), separators=(",", ":"), ensure_ascii=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Struct):
        return {field.name: _jsonable(value.get(field)) for field in value.schema.fields}
    if isinstance(value, list | tuple):
        return [_jsonable(element) for element in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(entry) for key, entry in value.items()}
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, decimal.Decimal | dt.date | dt.time):
        return str(value)
    return value


def _millis_suffix(moment: dt.time | dt.datetime) -> str:
    return f".{moment.microsecond // 1000:03d}Z"


def _write_time(value: dt.time) -> str:
    return value.strftime("%H:%M:%S") + _millis_suffix(value)


def _write_timestamp(value: dt.datetime) -> str:
    instant = value.astimezone(dt.UTC) if value.tzinfo else value
    return instant.strftime("%Y-%m-%dT%H:%M:%S") + _millis_suffix(instant)


_LOGICAL_WRITERS: Final[dict[str, Callable[[Any], str]]] = {
    Date.LOGICAL_NAME: lambda value: value.isoformat(),
    Time.LOGICAL_NAME: _write_time,
    Timestamp.LOGICAL_NAME: _write_timestamp,
    Decimal.LOGICAL_NAME: lambda value: format(value, "f"),
}


def text_to_value(text: str) -> SchemaAndValue:
    """The typed value ``text`` reads as, by the rules in this module's docstring."""
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return SchemaAndValue(BOOLEAN_SCHEMA, stripped.lower() == "true")
    if _INTEGER.fullmatch(stripped):
        return _integer(int(stripped))
    if _NUMBER.fullmatch(stripped):
        return _number(decimal.Decimal(stripped), text)
    temporal = _temporal(stripped)
    if temporal is not None:
        return temporal
    if stripped[:1] in ("[", "{"):
        try:
            return SchemaAndValue(None, json.loads(stripped))
        except json.JSONDecodeError:
            pass
    return SchemaAndValue(STRING_SCHEMA, text)


def _integer(number: int) -> SchemaAndValue:
    for schema, bound in _INTEGER_SCHEMAS:
        if -bound <= number < bound:
            return SchemaAndValue(schema, number)
    return SchemaAndValue(Decimal.schema(0), decimal.Decimal(number))


def _number(number: decimal.Decimal, text: str) -> SchemaAndValue:
    as_float64 = float(number)
    as_float32 = to_float32(as_float64)
    if not math.isinf(as_float32):
        return SchemaAndValue(FLOAT32_SCHEMA, as_float32)
    if not math.isinf(as_float64):
        return SchemaAndValue(FLOAT64_SCHEMA, as_float64)
    return SchemaAndValue(STRING_SCHEMA, text)


def _temporal(text: str) -> SchemaAndValue | None:
    try:
        if _TIMESTAMP.fullmatch(text):
            parsed = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
            return SchemaAndValue(Timestamp.SCHEMA, parsed)
        if _DATE.fullmatch(text):
            return SchemaAndValue(Date.SCHEMA, dt.date.fromisoformat(text))
        if _TIME.fullmatch(text):
            return SchemaAndValue(Time.SCHEMA, dt.datetime.strptime(text, "%H:%M:%S.%fZ").time())
    except ValueError:
        return None
    return None
