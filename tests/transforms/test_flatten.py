"""Flatten, as Kafka's FlattenTest specifies it, plus generated nested structs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.data import (
    INT32_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Schema,
    SchemaBuilder,
    Struct,
    Type,
)
from conveyor.transforms import FlattenKey, FlattenValue

from .support import configured, value_record


def test_schemaless_nested_maps_are_joined_with_the_delimiter() -> None:
    transform = configured(FlattenValue, {"delimiter": "#"})
    value = {"A": {"B": {"int8": 8, "string": "s"}, "int32": 32}, "top": True}
    result = transform.apply(value_record(None, value))
    assert result is not None
    assert result.value == {"A#B#int8": 8, "A#B#string": "s", "A#int32": 32, "top": True}


def test_schemaless_null_entries_are_kept_and_flattening_continues() -> None:
    transform = configured(FlattenValue)
    result = transform.apply(value_record(None, {"a": None, "b": {"c": 1}}))
    assert result is not None
    assert result.value == {"a": None, "b.c": 1}


def test_schemaless_arrays_are_kept_as_they_are() -> None:
    transform = configured(FlattenValue)
    result = transform.apply(value_record(None, {"a": {"list": [1, {"x": 1}]}}))
    assert result is not None
    assert result.value == {"a.list": [1, {"x": 1}]}


def test_schemaless_tombstone_passes_through() -> None:
    record = value_record(None, None)
    assert configured(FlattenValue).apply(record) is record


def test_schemaless_non_map_is_rejected() -> None:
    with pytest.raises(DataError, match="Only Map objects supported"):
        configured(FlattenValue).apply(value_record(None, 42))


def test_with_schema_nested_structs_become_top_level_fields() -> None:
    inner = SchemaBuilder.struct().field("int32", INT32_SCHEMA).field("string", STRING_SCHEMA).build()
    schema = SchemaBuilder.struct().name("outer").field("A", inner).field("B", INT32_SCHEMA).build()
    value = Struct(schema).put("A", Struct(inner).put("int32", 1).put("string", "s")).put("B", 2)

    result = configured(FlattenValue).apply(value_record(schema, value))

    assert result is not None
    assert result.value_schema.name == "outer"
    assert [field.name for field in result.value_schema.fields] == ["A.int32", "A.string", "B"]
    assert result.value.to_dict() == {"A.int32": 1, "A.string": "s", "B": 2}


def test_fields_under_an_optional_struct_become_optional() -> None:
    inner = SchemaBuilder.struct().field("x", INT32_SCHEMA).optional().build()
    schema = SchemaBuilder.struct().field("inner", inner).build()
    result = configured(FlattenValue).apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value_schema.field("inner.x").schema == OPTIONAL_INT32_SCHEMA
    assert result.value.get("inner.x") is None


def test_defaults_of_a_parent_struct_flow_to_its_flattened_fields() -> None:
    inner = SchemaBuilder.struct().field("x", INT32_SCHEMA).optional().build()
    inner_with_default = (
        SchemaBuilder.struct()
        .field("x", INT32_SCHEMA)
        .optional()
        .default_value(Struct(inner).put("x", 5))
        .build()
    )
    schema = SchemaBuilder.struct().field("inner", inner_with_default).build()
    result = configured(FlattenValue).apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value_schema.field("inner.x").schema.default == 5


def test_array_and_map_fields_with_schema_are_kept() -> None:
    array = SchemaBuilder.array(INT32_SCHEMA).build()
    mapping = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("a", array).field("m", mapping).build()
    value = Struct(schema).put("a", [1, 2]).put("m", {"k": 1})
    result = configured(FlattenValue).apply(value_record(schema, value))
    assert result is not None
    assert result.value_schema.field("a").schema.type is Type.ARRAY
    assert result.value.to_dict() == {"a": [1, 2], "m": {"k": 1}}


def test_with_schema_tombstone_keeps_the_flattened_schema() -> None:
    inner = SchemaBuilder.struct().field("x", INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("inner", inner).optional().build()
    result = configured(FlattenValue).apply(value_record(schema, None))
    assert result is not None
    assert result.value is None
    assert result.value_schema.optional
    assert [field.name for field in result.value_schema.fields] == ["inner.x"]


def test_key_variant_flattens_the_key() -> None:
    result = configured(FlattenKey).apply(value_record(None, None, key={"a": {"b": 1}}))
    assert result is not None
    assert result.key == {"a.b": 1}


NestedValue = dict[str, Any]
names = st.text(alphabet="abc", min_size=1, max_size=3)
nested_maps = st.recursive(
    st.integers(min_value=-(2**31), max_value=2**31 - 1),
    lambda children: st.dictionaries(names, children, min_size=1, max_size=3),
    max_leaves=12,
)


def schema_and_struct_of(value: NestedValue) -> tuple[Schema, Struct]:
    builder = SchemaBuilder.struct()
    children: dict[str, Any] = {}
    for name, item in value.items():
        if isinstance(item, dict):
            child_schema, child = schema_and_struct_of(item)
            builder.field(name, child_schema)
            children[name] = child
        else:
            builder.field(name, INT32_SCHEMA)
            children[name] = item
    schema = builder.build()
    struct = Struct(schema)
    for name, item in children.items():
        struct.put(name, item)
    return schema, struct


def leaves(value: NestedValue, prefix: str = "") -> dict[str, int]:
    flat: dict[str, int] = {}
    for name, item in value.items():
        path = f"{prefix}/{name}" if prefix else name
        flat.update(leaves(item, path) if isinstance(item, dict) else {path: item})
    return flat


@given(value=st.dictionaries(names, nested_maps, min_size=1, max_size=4))
def test_generated_maps_flatten_to_their_leaf_paths(value: NestedValue) -> None:
    result = configured(FlattenValue, {"delimiter": "/"}).apply(value_record(None, value))
    assert result is not None
    assert result.value == leaves(value)


@given(value=st.dictionaries(names, nested_maps, min_size=1, max_size=4))
def test_generated_structs_flatten_like_the_equivalent_maps(value: NestedValue) -> None:
    schema, struct = schema_and_struct_of(value)
    result = configured(FlattenValue, {"delimiter": "/"}).apply(value_record(schema, struct))
    assert result is not None
    assert result.value.to_dict() == leaves(value)
    assert [field.name for field in result.value_schema.fields] == list(leaves(value))
