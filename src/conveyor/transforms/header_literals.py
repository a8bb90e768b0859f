"""Typed header values from literal text, as Kafka's ``Values.parseString`` infers them for scalars."""

from __future__ import annotations

import datetime as dt
import re

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
    SchemaAndValue,
    Time,
    Timestamp,
)
from conveyor.transforms.cast_values import to_float32

_INTEGER = re.compile(r"[+-]?\d+")
_FLOATING = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}\.\d{3}Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
_INTEGER_SCHEMAS = ((8, INT8_SCHEMA), (16, INT16_SCHEMA), (32, INT32_SCHEMA), (64, INT64_SCHEMA))


def parse_literal(text: str) -> SchemaAndValue:
    """The narrowest Connect type that reads ``text``: boolean, integer, float, date/time, else string."""
    trimmed = text.strip()
    if trimmed.lower() in ("true", "false"):
        return SchemaAndValue(BOOLEAN_SCHEMA, trimmed.lower() == "true")
    if _INTEGER.fullmatch(trimmed):
        number = int(trimmed)
        for bits, schema in _INTEGER_SCHEMAS:
            if -(1 << (bits - 1)) <= number < (1 << (bits - 1)):
                return SchemaAndValue(schema, number)
    if _FLOATING.fullmatch(trimmed):
        number_f = float(trimmed)
        if to_float32(number_f) == number_f:
            return SchemaAndValue(FLOAT32_SCHEMA, number_f)
        return SchemaAndValue(FLOAT64_SCHEMA, number_f)
    if _TIMESTAMP.fullmatch(trimmed):
        moment = dt.datetime.strptime(trimmed, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
        return SchemaAndValue(Timestamp.SCHEMA, moment)
    if _DATE.fullmatch(trimmed):
        return SchemaAndValue(Date.SCHEMA, dt.date.fromisoformat(trimmed))
    if _TIME.fullmatch(trimmed):
        return SchemaAndValue(Time.SCHEMA, dt.datetime.strptime(trimmed, "%H:%M:%S.%fZ").time())
    return SchemaAndValue(STRING_SCHEMA, text)
