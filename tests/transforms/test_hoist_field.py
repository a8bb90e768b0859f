"""HoistField, as Kafka's HoistFieldTest specifies it."""

from __future__ import annotations

from conveyor.data import INT32_SCHEMA, Type
from conveyor.transforms import HoistFieldKey, HoistFieldValue

from .support import configured, key_record, value_record


def test_schemaless_wraps_the_key_in_a_single_entry_map() -> None:
    transform = configured(HoistFieldKey, {"field": "magic"})
    result = transform.apply(key_record(None, 42))
    assert result is not None
    assert (result.key_schema, result.key) == (None, {"magic": 42})


def test_with_schema_wraps_the_key_in_a_struct_with_one_field() -> None:
    transform = configured(HoistFieldKey, {"field": "magic"})
    result = transform.apply(key_record(INT32_SCHEMA, 42))
    assert result is not None
    assert result.key_schema.type is Type.STRUCT
    assert [field.name for field in result.key_schema.fields] == ["magic"]
    assert result.key_schema.field("magic").schema == INT32_SCHEMA
    assert result.key.get("magic") == 42


def test_value_variant_leaves_the_key_alone() -> None:
    transform = configured(HoistFieldValue, {"field": "line"})
    record = value_record(None, "hello", key="k")
    result = transform.apply(record)
    assert result is not None
    assert (result.key, result.value) == ("k", {"line": "hello"})
