"""What the JSON encoder and decoder compilers share: the choice of compiler and the parts of a map."""

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


def compile_map_parts(
    schema: Schema, options: JsonOptions, compile_schema: Callable[[Schema | None, JsonOptions], CompiledT]
) -> tuple[CompiledT, CompiledT, bool]:
    """A MAP schema's compiled key and value, and whether its keys are strings (so it is a JSON object).

    As Kafka writes them, a map with string keys is a JSON object, any other map an array of pairs.
    """
    assert schema.key_schema is not None
    key_compiled = compile_schema(schema.key_schema, options)
    return key_compiled, compile_schema(schema.value_schema, options), schema.key_schema.type is Type.STRING
