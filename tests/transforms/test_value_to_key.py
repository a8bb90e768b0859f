"""ValueToKey, as Kafka's ValueToKeyTest specifies it."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError
from conveyor.data import INT32_SCHEMA, DataError, SchemaBuilder, Struct
from conveyor.transforms import ValueToKey

from .support import configured, value_record


def test_schemaless_key_is_a_map_of_the_listed_fields() -> None:
    transform = configured(ValueToKey, {"fields": "a,b"})
    result = transform.apply(value_record(None, {"a": 1, "b": 2, "c": 3}))
    assert result is not None
    assert (result.key_schema, result.key) == (None, {"a": 1, "b": 2})


def test_with_schema_key_is_a_struct_with_the_fields_schemas() -> None:
    transform = configured(ValueToKey, {"fields": "a,b"})
    schema = (
        SchemaBuilder.struct()
        .field("a", INT32_SCHEMA)
        .field("b", INT32_SCHEMA)
        .field("c", INT32_SCHEMA)
        .build()
    )
    value = Struct(schema).put("a", 1).put("b", 2).put("c", 3)

    result = transform.apply(value_record(schema, value))

    assert result is not None
    assert [field.name for field in result.key_schema.fields] == ["a", "b"]
    assert result.key.to_dict() == {"a": 1, "b": 2}
    assert result.value is value


def test_with_schema_a_missing_field_is_an_error() -> None:
    transform = configured(ValueToKey, {"fields": "not_exist"})
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()
    with pytest.raises(DataError, match="Field does not exist: not_exist"):
        transform.apply(value_record(schema, Struct(schema).put("a", 1)))


def test_empty_field_list_is_rejected() -> None:
    with pytest.raises(ConfigError, match="fields"):
        configured(ValueToKey, {"fields": ""})
