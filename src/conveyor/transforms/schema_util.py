"""Schema helpers shared by the transformations (Kafka's ``SchemaUtil`` and ``ConnectSchema.schemaType``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conveyor.data import DataError, Field, Schema, Struct, Type


def struct_schema_like(
    original: Schema,
    fields: Iterable[tuple[str, Schema]],
    *,
    optional: bool = False,
    default: Any = None,
) -> Schema:
    """A STRUCT schema with ``original``'s name, version, doc and parameters and the given fields."""
    built: list[Field] = []
    seen: set[str] = set()
    for name, schema in fields:
        if name in seen:
            raise DataError(f"Cannot create field because of field name duplication {name}")
        seen.add(name)
        built.append(Field(name, len(built), schema))
    return Schema(
        Type.STRUCT,
        optional=optional,
        default=default,
        name=original.name,
        version=original.version,
        doc=original.doc,
        parameters=original.parameters,
        fields=tuple(built),
    )


def with_optional(schema: Schema, optional: bool) -> Schema:
    """``schema`` with its optional flag set as asked (the same object when it already is)."""
    if schema.optional == optional:
        return schema
    return dataclasses.replace(schema, optional=optional)


def infer_type(value: object) -> Type | None:
    """The Connect type of a schemaless Python value, or None when Connect has no type for it."""
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64 if not -(2**31) <= value < 2**31 else Type.INT32
    if isinstance(value, float):
        return Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, bytes | bytearray | memoryview | decimal.Decimal):
        return Type.BYTES
    if isinstance(value, dt.datetime):
        return Type.INT64
    if isinstance(value, dt.date | dt.time):
        return Type.INT32
    if isinstance(value, Struct):
        return Type.STRUCT
    if isinstance(value, Mapping):
        return Type.MAP
    if isinstance(value, Sequence):
        return Type.ARRAY
    return None
