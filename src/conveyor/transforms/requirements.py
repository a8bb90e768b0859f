"""Checks that a record key or value has the shape a transformation needs, with Kafka's error messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.data import DataError, Schema, Struct


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    """Return ``schema``, or fail when the record has none."""
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema


def require_map(value: object, purpose: str) -> Mapping[str, Any]:
    """Return ``value`` as a map, or fail as Kafka does for schemaless data that is not a map."""
    if not isinstance(value, Mapping):
        raise DataError(
            f"Only Map objects supported in absence of schema for [{purpose}], found: {_type_name(value)}"
        )
    return value


def require_map_or_none(value: object, purpose: str) -> Mapping[str, Any] | None:
    """Like :func:`require_map`, but lets ``None`` through."""
    return None if value is None else require_map(value, purpose)


def require_struct(value: object, purpose: str) -> Struct:
    """Return ``value`` as a Struct, or fail as Kafka does for schema-ful data that is not a Struct."""
    if not isinstance(value, Struct):
        raise DataError(f"Only Struct objects supported for [{purpose}], found: {_type_name(value)}")
    return value


def require_struct_or_none(value: object, purpose: str) -> Struct | None:
    """Like :func:`require_struct`, but lets ``None`` through."""
    return None if value is None else require_struct(value, purpose)
