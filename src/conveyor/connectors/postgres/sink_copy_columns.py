"""A batch's rows as ``COPY`` text built a column at a time: one check of a column's value types decides
how the whole column is written, so that integers, floats, booleans and strings cost a C-level call each
rather than an encoder call each. Other columns, and columns with values of mixed types, go through the
value by value encoders of ``sink_schema``, which raise on a value that does not fit.
"""

from __future__ import annotations

import math
import zoneinfo
from collections.abc import Callable, Sequence
from typing import Any, Final

import orjson

from conveyor.connectors.postgres.sink_schema import NULL, Encoder, copy_escape, encoder
from conveyor.data import Schema, Type

ColumnEncoder = Callable[[Sequence[Any]], Sequence[str]]
"""A column's values (None for NULL) as COPY text fields; raises on a value that does not fit."""

_NONE: Final = type(None)
_ESCAPED: Final = ("\\", "\n", "\r", "\t")
_SEPARATOR: Final = "\x00"
"""Joins a string column while it is escaped: PostgreSQL's text never holds it, so a value that does is left
to the value by value path (and the database's error)."""


def column_encoder(schema: Schema, timezone: zoneinfo.ZoneInfo) -> ColumnEncoder:
    """How a column of values of ``schema`` is written by ``COPY``."""
    one = encoder(schema, timezone)
    if schema.name is None and schema.type in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return _typed({int}, _integers, one)
    if schema.name is None and schema.type in (Type.FLOAT32, Type.FLOAT64):
        return _typed({float}, _finite_floats(one), one)
    if schema.name is None and schema.type is Type.BOOLEAN:
        return _typed({bool}, _booleans, one)
    if schema.name is None and schema.type is Type.STRING:
        return _typed({str}, _escaped_strings, one)
    return lambda values: _one_by_one(one, values)


def copy_text(columns: Sequence[Sequence[str]]) -> str:
    """The COPY text of rows whose fields are given column by column."""
    return "\n".join(map("\t".join, zip(*columns, strict=True))) + "\n"


def _typed(types: set[type], whole: Callable[[Sequence[Any]], Sequence[str]], one: Encoder) -> ColumnEncoder:
    """``whole`` for a column of only ``types``, else value by value."""
    accepted = frozenset(types)

    def encode(values: Sequence[Any]) -> Sequence[str]:
        if set(map(type, values)) <= accepted:
            return whole(values)
        return _one_by_one(one, values)

    return encode


def _one_by_one(one: Encoder, values: Sequence[Any]) -> list[str]:
    return [NULL if value is None else one(value) for value in values]


def _integers(values: Sequence[Any]) -> Sequence[str]:
    """Integers in decimal, written by orjson for the whole column in one call (``str`` costs a call per
    value); one beyond 64 bits, which orjson refuses, takes ``str``."""
    try:
        return _split_json_list(values)
    except TypeError:
        return list(map(str, values))


def _split_json_list(values: Sequence[Any]) -> list[str]:
    """The JSON texts of a list of numbers, from one ``orjson.dumps`` of the list split at its commas."""
    if not values:
        return []
    return orjson.dumps(values).decode()[1:-1].split(",")


def _booleans(values: Sequence[Any]) -> list[str]:
    return ["t" if value else "f" for value in values]


def _finite_floats(one: Encoder) -> Callable[[Sequence[Any]], Sequence[str]]:
    """Finite floats in their shortest round-trip spelling, written by orjson for the whole column in one
    call (``repr`` costs a call per value); NaN and infinities need PostgreSQL's spelling, value by value."""

    def encode(values: Sequence[Any]) -> Sequence[str]:
        if not all(map(math.isfinite, values)):
            return _one_by_one(one, values)
        try:
            return _split_json_list(values)
        except TypeError:
            return list(map(repr, values))

    return encode


def _escaped_strings(values: Sequence[Any]) -> Sequence[str]:
    joined = _SEPARATOR.join(values)
    if not any(character in joined for character in _ESCAPED):
        return values
    if joined.count(_SEPARATOR) != len(values) - 1:
        return [copy_escape(value) for value in values]
    return copy_escape(joined).split(_SEPARATOR)
