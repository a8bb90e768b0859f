"""Decoding a batch of JSON struct payloads column by column, for structs of plain primitive fields.

Checking one field's values across the batch at once (their set of types, their range) costs a few C calls
where decoding record by record costs several Python calls per value. The payloads are parsed by orjson
(``parse_payload``), with plain floats: a float read through ``decimal.Decimal`` and then converted, as
the record by record decoder does, is the same float. Whatever orjson refuses (a non-finite literal, an
integer beyond 64 bits, a lone surrogate) or these checks do not vouch for (an integral ``1.0`` for an
integer field, a null in a required field, a value out of range) makes the whole batch go back to the
record by record decoder, which gives the same values or the same error. The structs are not built: the
batch is a ``StructColumn`` of the decoded columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any, Final

import orjson

from conveyor.convert.json_options import JsonOptions
from conveyor.data import Schema, StructColumn, Type

ColumnsDecoder = Callable[[Sequence[Any]], "StructColumn | None"]
"""Structs of parsed payloads, or None when the batch needs the record by record decoder."""

parse_payload: Final[Callable[[bytes | bytearray | memoryview | str], Any]] = orjson.loads
"""A JSON text's value; raises ``orjson.JSONDecodeError`` (a ``ValueError``) on what it refuses."""

_Column = Callable[[list[Any]], "list[Any] | None"]

_INTEGER_BOUNDS: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}
_NONE: Final = type(None)


def compile_columns_decoder(schema: Schema, options: JsonOptions) -> ColumnsDecoder | None:
    """A decoder of payload batches of ``schema``, or None when its fields are not all plain primitives."""
    if schema.type is not Type.STRUCT or not schema.fields:
        return None
    columns: list[tuple[str, Callable[[Any], Any], _Column]] = []
    for field in schema.fields:
        column = _column_decoder(field.schema, options)
        if column is None:
            return None
        columns.append((field.name, itemgetter(field.name), column))

    def decode(nodes: Sequence[Any]) -> StructColumn | None:
        if set(map(type, nodes)) != {dict}:
            return None
        decoded: list[list[Any]] = []
        for name, get, column in columns:
            try:
                present = list(map(get, nodes))
            except KeyError:
                present = [node.get(name) for node in nodes]
            values = column(present)
            if values is None:
                return None
            decoded.append(values)
        return StructColumn(schema, decoded)

    return decode


def _column_decoder(schema: Schema, options: JsonOptions) -> _Column | None:
    if schema.name is not None:
        return None
    accepted: frozenset[type]
    if schema.type in _INTEGER_BOUNDS:
        accepted = frozenset({int})
    elif schema.type is Type.FLOAT64:
        accepted = frozenset({float, int})
    elif schema.type is Type.BOOLEAN:
        accepted = frozenset({bool})
    elif schema.type is Type.STRING:
        accepted = frozenset({str})
    else:
        return None
    bounds = _INTEGER_BOUNDS.get(schema.type)
    to_float = schema.type is Type.FLOAT64
    default = schema.default if options.replace_null_with_default else None
    optional = schema.optional

    def decode(values: list[Any]) -> list[Any] | None:
        types = set(map(type, values))
        nulls = _NONE in types
        if nulls:
            types.discard(_NONE)
            if default is None and not optional:
                return None
        if not types <= accepted:
            return None
        present = [v for v in values if v is not None] if nulls else values
        if bounds is not None and present and (min(present) < bounds[0] or max(present) > bounds[1]):
            return None
        if to_float and int in types:
            values = [v if v is None else float(v) for v in values]
        if nulls and default is not None:
            values = [default if v is None else v for v in values]
        return values

    return decode
