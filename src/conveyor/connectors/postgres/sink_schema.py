"""Connect schemas as PostgreSQL columns: the type ``auto.create``/``auto.evolve`` give a field, and how a
field's value is written as a field of ``COPY``'s text format.

Confluent's PostgreSQL dialect gives the primitive and logical types; structs and maps (which it refuses)
become ``jsonb``, as do arrays of them; Debezium's ``io.debezium.time.*`` and ``io.debezium.data.*``
names get the PostgreSQL types they were read from.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import math
import zoneinfo
from collections.abc import Callable, Mapping
from typing import Any

from conveyor.connectors.postgres.types import (
    DEBEZIUM_DATE,
    DEBEZIUM_JSON,
    DEBEZIUM_MICRO_TIME,
    DEBEZIUM_MICRO_TIMESTAMP,
    DEBEZIUM_NANO_TIME,
    DEBEZIUM_NANO_TIMESTAMP,
    DEBEZIUM_TIME,
    DEBEZIUM_TIMESTAMP,
    DEBEZIUM_UUID,
    DEBEZIUM_VARIABLE_SCALE_DECIMAL,
    DEBEZIUM_XML,
    DEBEZIUM_YEAR,
    DEBEZIUM_ZONED_TIME,
    DEBEZIUM_ZONED_TIMESTAMP,
)
from conveyor.data import DataError, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from conveyor.data.logical import decimal_from_unscaled

Encoder = Callable[[Any], str]
"""A non-null value to one field of a ``COPY ... (FORMAT text)`` line (already escaped)."""

NULL = "\\N"

_PRIMITIVE_TYPES: Mapping[Type, str] = {
    Type.INT8: "smallint",
    Type.INT16: "smallint",
    Type.INT32: "integer",
    Type.INT64: "bigint",
    Type.FLOAT32: "real",
    Type.FLOAT64: "double precision",
    Type.BOOLEAN: "boolean",
    Type.STRING: "text",
    Type.BYTES: "bytea",
}

_NAMED_TYPES: Mapping[str, str] = {
    Decimal.LOGICAL_NAME: "numeric",
    Date.LOGICAL_NAME: "date",
    Time.LOGICAL_NAME: "time",
    Timestamp.LOGICAL_NAME: "timestamp",
    DEBEZIUM_DATE: "date",
    DEBEZIUM_TIME: "time",
    DEBEZIUM_MICRO_TIME: "time",
    DEBEZIUM_NANO_TIME: "time",
    DEBEZIUM_TIMESTAMP: "timestamp",
    DEBEZIUM_MICRO_TIMESTAMP: "timestamp",
    DEBEZIUM_NANO_TIMESTAMP: "timestamp",
    DEBEZIUM_ZONED_TIMESTAMP: "timestamptz",
    DEBEZIUM_ZONED_TIME: "timetz",
    DEBEZIUM_YEAR: "integer",
    DEBEZIUM_JSON: "jsonb",
    DEBEZIUM_UUID: "uuid",
    DEBEZIUM_XML: "xml",
    DEBEZIUM_VARIABLE_SCALE_DECIMAL: "numeric",
}

_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1)
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def sql_type(schema: Schema) -> str:
    """The PostgreSQL column type for values of ``schema``."""
    if schema.name is not None and schema.name in _NAMED_TYPES:
        return _NAMED_TYPES[schema.name]
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        element = schema.value_schema
        if element.type in (Type.ARRAY, Type.MAP, Type.STRUCT) or sql_type(element) in ("jsonb", "xml"):
            return "jsonb"
        return f"{sql_type(element)}[]"
    if schema.type in (Type.MAP, Type.STRUCT):
        return "jsonb"
    return _PRIMITIVE_TYPES[schema.type]


def copy_escape(text: str) -> str:
    """``text`` as a field of COPY's text format."""
    return text.translate(_COPY_ESCAPES)


def encoder(schema: Schema, timezone: zoneinfo.ZoneInfo) -> Encoder:
    """How a non-null value of ``schema`` is written into its column by ``COPY``."""
    plain = _plain_encoder(schema, timezone)
    if plain is not None:
        return plain
    text = _text_of(schema, timezone)
    return lambda value: copy_escape(text(value))


def _plain_encoder(schema: Schema, timezone: zoneinfo.ZoneInfo) -> Encoder | None:
    """Encoders whose output never needs COPY escaping (numbers, booleans), or that escape themselves."""
    if schema.name is None or schema.name in (DEBEZIUM_YEAR,):
        if schema.type in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            return _integer
        if schema.type in (Type.FLOAT32, Type.FLOAT64):
            return _float
        if schema.type is Type.BOOLEAN:
            return _boolean
        if schema.type is Type.STRING:
            return copy_escape
        if schema.type is Type.BYTES:
            return _bytea_in_copy
    return None


def _text_of(schema: Schema, timezone: zoneinfo.ZoneInfo) -> Callable[[Any], str]:
    """A value of ``schema`` as PostgreSQL's input text for its column type (before COPY escaping)."""
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return _decimal_text
    if name in (Date.LOGICAL_NAME, DEBEZIUM_DATE):
        return _date_text
    if name in (Time.LOGICAL_NAME, DEBEZIUM_TIME):
        return lambda value: _time_text(value, 1_000)
    if name == DEBEZIUM_MICRO_TIME:
        return lambda value: _time_text(value, 1)
    if name == DEBEZIUM_NANO_TIME:
        return lambda value: _time_text(value // 1000 if isinstance(value, int) else value, 1)
    if name in (Timestamp.LOGICAL_NAME, DEBEZIUM_TIMESTAMP):
        return lambda value: _timestamp_text(value, 1_000, timezone)
    if name == DEBEZIUM_MICRO_TIMESTAMP:
        return lambda value: _timestamp_text(value, 1, timezone)
    if name == DEBEZIUM_NANO_TIMESTAMP:
        return lambda value: _timestamp_text(value // 1000 if isinstance(value, int) else value, 1, timezone)
    if name == DEBEZIUM_VARIABLE_SCALE_DECIMAL:
        return _variable_decimal_text
    if name in _NAMED_TYPES and schema.type is Type.STRING:
        return str
    if schema.type is Type.ARRAY and sql_type(schema) != "jsonb":
        assert schema.value_schema is not None
        return _array_text(schema.value_schema, timezone)
    if sql_type(schema) == "jsonb":
        return _json_text
    if schema.type is Type.STRING:
        return str
    if schema.type is Type.BYTES:
        return _bytea_text
    return _PRIMITIVE_TEXT[schema.type]


def _integer(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"Expected an integer, got {type(value).__name__} {value!r}")
    return str(value)


def _float(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataError(f"Expected a number, got {type(value).__name__} {value!r}")
    number = float(value)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return repr(number)


def _boolean(value: Any) -> str:
    if not isinstance(value, bool):
        raise DataError(f"Expected a boolean, got {type(value).__name__} {value!r}")
    return "t" if value else "f"


_PRIMITIVE_TEXT: Mapping[Type, Callable[[Any], str]] = {
    Type.INT8: _integer,
    Type.INT16: _integer,
    Type.INT32: _integer,
    Type.INT64: _integer,
    Type.FLOAT32: _float,
    Type.FLOAT64: _float,
    Type.BOOLEAN: _boolean,
}


def _bytea_in_copy(value: Any) -> str:
    """``\\x<hex>``, with its backslash doubled for COPY."""
    return "\\\\x" + bytes(value).hex()


def _bytea_text(value: Any) -> str:
    return "\\x" + bytes(value).hex()


def _decimal_text(value: Any) -> str:
    return str(value if isinstance(value, decimal.Decimal) else decimal.Decimal(value))


def _variable_decimal_text(value: Any) -> str:
    if not isinstance(value, Struct):
        raise DataError(f"Expected a VariableScaleDecimal struct, got {type(value).__name__}")
    raw = value.get("value")
    unscaled = int.from_bytes(raw if isinstance(raw, bytes) else base64.b64decode(raw), "big", signed=True)
    return str(decimal_from_unscaled(unscaled, int(value.get("scale"))))


def _date_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = _EPOCH_DATE + dt.timedelta(days=value)
    if not isinstance(value, dt.date):
        raise DataError(f"Expected a date, got {type(value).__name__} {value!r}")
    return value.isoformat()


def _time_text(value: Any, micros_per_unit: int) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = (dt.datetime.min + dt.timedelta(microseconds=value * micros_per_unit)).time()
    if not isinstance(value, dt.time):
        raise DataError(f"Expected a time of day, got {type(value).__name__} {value!r}")
    return value.isoformat()


def _timestamp_text(value: Any, micros_per_unit: int, timezone: zoneinfo.ZoneInfo) -> str:
    """The wall time in ``db.timezone`` of an instant: Connect timestamps are UTC."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (_EPOCH + dt.timedelta(microseconds=value * micros_per_unit)).replace(tzinfo=dt.UTC)
    if not isinstance(value, dt.datetime):
        raise DataError(f"Expected a timestamp, got {type(value).__name__} {value!r}")
    moment: dt.datetime = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
    return moment.astimezone(timezone).replace(tzinfo=None).isoformat()


def _array_text(element: Schema, timezone: zoneinfo.ZoneInfo) -> Callable[[Any], str]:
    """A PostgreSQL array literal: ``{1,2}``, ``{"a","b\\"c"}``, NULL elements unquoted."""
    text = _text_of(element, timezone) if element.type is not Type.BYTES else _bytea_text

    def element_text(item: Any) -> str:
        if item is None:
            return "NULL"
        rendered = text(item)
        return '"' + rendered.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def array(value: Any) -> str:
        if not isinstance(value, list | tuple):
            raise DataError(f"Expected an array, got {type(value).__name__} {value!r}")
        return "{" + ",".join(map(element_text, value)) + "}"

    return array


def _json_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_jsonable(value), separators=(",", ":"))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Struct):
        return {field.name: _jsonable(value.get(field)) for field in value.schema.fields}
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value
