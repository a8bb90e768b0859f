"""ExtractField, as Kafka's ExtractFieldTest specifies it (including KIP-821 nested paths)."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError
from conveyor.data import INT32_SCHEMA, DataError, SchemaBuilder, Struct
from conveyor.transforms import ExtractFieldKey, ExtractFieldValue

from .support import configured, key_record, value_record


def test_schemaless_extracts_the_field_from_a_map() -> None:
    transform = configured(ExtractFieldKey, {"field": "magic"})
    result = transform.apply(key_record(None, {"magic": 42}))
    assert result is not None
    assert (result.key_schema, result.key) == (None, 42)


def test_schemaless_missing_field_extracts_null() -> None:
    transform = configured(ExtractFieldKey, {"field": "nonexistent"})
    result = transform.apply(key_record(None, {"magic": 42}))
    assert result is not None
    assert result.key is None


def test_schemaless_null_passes_through_as_null() -> None:
    transform = configured(ExtractFieldKey, {"field": "magic"})
    result = transform.apply(key_record(None, None))
    assert result is not None
    assert result.key is None


def test_with_schema_extracts_the_value_and_its_field_schema() -> None:
    transform = configured(ExtractFieldKey, {"field": "magic"})
    schema = SchemaBuilder.struct().field("magic", INT32_SCHEMA).build()
    result = transform.apply(key_record(schema, Struct(schema).put("magic", 42)))
    assert result is not None
    assert (result.key_schema, result.key) == (INT32_SCHEMA, 42)


def test_with_schema_null_value_keeps_the_field_schema() -> None:
    transform = configured(ExtractFieldKey, {"field": "magic"})
    schema = SchemaBuilder.struct().field("magic", INT32_SCHEMA).optional().build()
    result = transform.apply(key_record(schema, None))
    assert result is not None
    assert (result.key_schema, result.key) == (INT32_SCHEMA, None)


def test_with_schema_unknown_field_fails_naming_it() -> None:
    transform = configured(ExtractFieldKey, {"field": "nonexistent"})
    schema = SchemaBuilder.struct().field("magic", INT32_SCHEMA).build()
    with pytest.raises(DataError, match="Unknown field: nonexistent"):
        transform.apply(key_record(schema, Struct(schema).put("magic", 42)))


def test_v2_syntax_extracts_a_nested_struct_field() -> None:
    transform = configured(ExtractFieldValue, {"field": "parent.child", "field.syntax.version": "V2"})
    child = SchemaBuilder.struct().field("child", INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("parent", child).build()
    value = Struct(schema).put("parent", Struct(child).put("child", 7))
    result = transform.apply(value_record(schema, value))
    assert result is not None
    assert (result.value_schema, result.value) == (INT32_SCHEMA, 7)


def test_v2_syntax_extracts_a_nested_map_entry() -> None:
    transform = configured(ExtractFieldValue, {"field": "parent.child", "field.syntax.version": "V2"})
    result = transform.apply(value_record(None, {"parent": {"child": 7}}))
    assert result is not None
    assert result.value == 7


def test_v2_backticks_keep_dots_inside_a_field_name() -> None:
    transform = configured(ExtractFieldValue, {"field": "`a.b`.c", "field.syntax.version": "V2"})
    result = transform.apply(value_record(None, {"a.b": {"c": 1}, "a": {"b": {"c": 2}}}))
    assert result is not None
    assert result.value == 1


def test_v1_syntax_reads_dots_as_part_of_the_name() -> None:
    transform = configured(ExtractFieldValue, {"field": "a.b"})
    result = transform.apply(value_record(None, {"a.b": 1, "a": {"b": 2}}))
    assert result is not None
    assert result.value == 1


def test_null_field_returns_default_unless_replace_null_with_default_is_false() -> None:
    schema = (
        SchemaBuilder.struct().field("f", SchemaBuilder.int32().optional().default_value(9).build()).build()
    )
    with_default = configured(ExtractFieldValue, {"field": "f"}).apply(value_record(schema, Struct(schema)))
    without = configured(ExtractFieldValue, {"field": "f", "replace.null.with.default": "false"}).apply(
        value_record(schema, Struct(schema))
    )
    assert with_default is not None and without is not None
    assert (with_default.value, without.value) == (9, None)


def test_missing_field_setting_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="field"):
        configured(ExtractFieldValue, {})
