"""How the JSON encoder and decoder choose a schema's compiler: logical type, structure, then type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from conveyor.convert.json_options import JsonOptions
from conveyor.data import Schema, Type

CompiledT = TypeVar("CompiledT")


def compile_by_schema(
    schema: Schema,
    options: JsonOptions,
    logical: CompiledT | None,
    composites: Mapping[Type, Callable[[Schema, JsonOptions], CompiledT]],
    primitive: Callable[[Type], CompiledT],
) -> CompiledT:
    """``logical`` when there is one, else the STRUCT, ARRAY or MAP compiler, else the primitive one."""
    if logical is not None:
        return logical
    composite = composites.get(schema.type)
    if composite is not None:
        return composite(schema, options)
    return primitive(schema.type)
