"""SetSchemaMetadata, as Kafka's SetSchemaMetadataTest specifies it."""

from __future__ import annotations

import pytest

from conveyor.api import ConfigError
from conveyor.data import INT32_SCHEMA, OPTIONAL_INT32_SCHEMA, DataError, SchemaBuilder, Struct
from conveyor.transforms import SetSchemaMetadataKey, SetSchemaMetadataValue

from .support import configured, value_record


def test_schema_name_is_updated() -> None:
    transform = configured(SetSchemaMetadataValue, {"schema.name": "foo"})
    result = transform.apply(value_record(SchemaBuilder.struct().build(), None))
    assert result is not None
    assert result.value_schema.name == "foo"


def test_schema_version_is_updated() -> None:
    transform = configured(SetSchemaMetadataValue, {"schema.version": "42"})
    result = transform.apply(value_record(SchemaBuilder.struct().build(), None))
    assert result is not None
    assert result.value_schema.version == 42


def test_name_and_version_are_updated_together_and_the_struct_follows_the_new_schema() -> None:
    transform = configured(SetSchemaMetadataValue, {"schema.name": "foo", "schema.version": "42"})
    schema = SchemaBuilder.struct().field("stringField", INT32_SCHEMA).build()
    value = Struct(schema).put("stringField", 3)
    result = transform.apply(value_record(schema, value))
    assert result is not None
    assert (result.value_schema.name, result.value_schema.version) == ("foo", 42)
    assert result.value.schema is result.value_schema
    assert result.value.get("stringField") == 3


def test_primitive_schema_keeps_its_value() -> None:
    transform = configured(SetSchemaMetadataKey, {"schema.name": "id"})
    result = transform.apply(value_record(None, None, key_schema=OPTIONAL_INT32_SCHEMA, key=5))
    assert result is not None
    assert (result.key_schema.name, result.key_schema.optional, result.key) == ("id", True, 5)


def test_records_without_schema_are_rejected() -> None:
    transform = configured(SetSchemaMetadataValue, {"schema.name": "foo"})
    with pytest.raises(DataError, match="Schema required"):
        transform.apply(value_record(None, {"a": 1}))


def test_neither_name_nor_version_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        configured(SetSchemaMetadataValue, {})
