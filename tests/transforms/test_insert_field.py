"""InsertField, as Kafka's InsertFieldTest specifies it."""

from __future__ import annotations

import datetime as dt

import pytest

from conveyor.api import ConfigError
from conveyor.data import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataError,
    SchemaBuilder,
    Struct,
    Timestamp,
)
from conveyor.transforms import InsertFieldKey, InsertFieldValue

from .support import configured, key_record, sink_record, value_record

ALL_FIELDS = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}


def test_topic_level_struct_is_required_with_a_schema() -> None:
    transform = configured(InsertFieldValue, {"topic.field": "topic_field"})
    with pytest.raises(DataError, match="Only Struct objects supported"):
        transform.apply(value_record(INT32_SCHEMA, 42))


def test_schema_ful_insertion_adds_typed_fields_with_declared_optionality() -> None:
    transform = configured(InsertFieldValue, ALL_FIELDS)
    schema = (
        SchemaBuilder.struct()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", OPTIONAL_INT64_SCHEMA)
        .build()
    )
    record = value_record(schema, Struct(schema).put("magic", 42), timestamp=1_000)

    result = transform.apply(record)

    assert result is not None
    updated = result.value_schema
    assert (updated.name, updated.version, updated.doc) == ("name", 1, "doc")
    assert updated.field("magic").schema == OPTIONAL_INT64_SCHEMA
    assert updated.field("topic_field").schema == STRING_SCHEMA
    assert updated.field("partition_field").schema == OPTIONAL_INT32_SCHEMA
    assert updated.field("timestamp_field").schema == Timestamp.builder().optional().build()
    assert updated.field("instance_id").schema == OPTIONAL_STRING_SCHEMA
    assert result.value.get("magic") == 42
    assert result.value.get("topic_field") == "test"
    assert result.value.get("partition_field") == 0
    assert result.value.get("timestamp_field") == dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC)
    assert result.value.get("instance_id") == "my-instance-id"


def test_updated_schema_is_cached_per_input_schema() -> None:
    transform = configured(InsertFieldValue, ALL_FIELDS)
    schema = SchemaBuilder.struct().field("magic", OPTIONAL_INT64_SCHEMA).build()
    first = transform.apply(value_record(schema, Struct(schema).put("magic", 1)))
    second = transform.apply(value_record(schema, Struct(schema).put("magic", 2)))
    assert first is not None and second is not None
    assert first.value_schema is second.value_schema


def test_schemaless_insertion_puts_raw_metadata_into_a_copy_of_the_map() -> None:
    transform = configured(InsertFieldValue, ALL_FIELDS)
    original = {"magic": 42}

    result = transform.apply(value_record(None, original, timestamp=1_000))

    assert result is not None
    assert result.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "timestamp_field": 1_000,
        "instance_id": "my-instance-id",
    }
    assert original == {"magic": 42}


def test_tombstone_without_schema_passes_through() -> None:
    transform = configured(InsertFieldValue, ALL_FIELDS)
    record = value_record(None, None)
    assert transform.apply(record) is record


def test_tombstone_with_schema_passes_through() -> None:
    transform = configured(InsertFieldValue, ALL_FIELDS)
    schema = SchemaBuilder.struct().field("magic", OPTIONAL_INT64_SCHEMA).optional().build()
    record = value_record(schema, None)
    assert transform.apply(record) is record


def test_missing_timestamp_and_partition_are_not_inserted_schemaless() -> None:
    transform = configured(InsertFieldValue, {"timestamp.field": "ts", "partition.field": "p"})
    record = value_record(None, {"a": 1}).new_record(kafka_partition=None)
    result = transform.apply(record)
    assert result is not None
    assert result.value == {"a": 1}


def test_offset_is_inserted_for_sink_records() -> None:
    transform = configured(InsertFieldValue, {"offset.field": "offset!"})
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()
    result = transform.apply(sink_record(schema, Struct(schema).put("a", 1), offset=7))
    assert result is not None
    assert result.value_schema.field("offset").schema == INT64_SCHEMA
    assert result.value.get("offset") == 7


def test_offset_insertion_fails_for_source_records() -> None:
    transform = configured(InsertFieldValue, {"offset.field": "offset"})
    with pytest.raises(DataError, match="only supported for sink connectors"):
        transform.apply(value_record(None, {"a": 1}))


def test_key_variant_inserts_into_the_key_and_keeps_the_value() -> None:
    transform = configured(InsertFieldKey, {"topic.field": "topic_field"})
    record = key_record(None, {"id": 1}).new_record(value="untouched")
    result = transform.apply(record)
    assert result is not None
    assert result.key == {"id": 1, "topic_field": "test"}
    assert result.value == "untouched"


def test_field_with_default_null_is_kept_null_when_replace_null_with_default_is_false() -> None:
    transform = configured(InsertFieldValue, {"topic.field": "t", "replace.null.with.default": "false"})
    schema = (
        SchemaBuilder.struct().field("a", SchemaBuilder.int32().optional().default_value(5).build()).build()
    )
    result = transform.apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value.get_without_default("a") is None


def test_field_with_default_takes_the_default_by_default() -> None:
    transform = configured(InsertFieldValue, {"topic.field": "t"})
    schema = (
        SchemaBuilder.struct().field("a", SchemaBuilder.int32().optional().default_value(5).build()).build()
    )
    result = transform.apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value.get_without_default("a") == 5


def test_bad_boolean_setting_names_the_transform_and_key() -> None:
    with pytest.raises(ConfigError, match=r"InsertFieldValue.*replace\.null\.with\.default") as raised:
        configured(InsertFieldValue, {"replace.null.with.default": "maybe"})
    assert raised.value.name == "replace.null.with.default"
