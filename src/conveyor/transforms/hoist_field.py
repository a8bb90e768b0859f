"""HoistField: wrap the whole key or value in a struct (schema-ful) or map (schemaless) under one field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, Field, Schema, Struct, Type
from conveyor.transforms.record_side import KeySide, RecordSide, ValueSide
from conveyor.transforms.schema_cache import SchemaUpdateCache
from conveyor.transforms.transform_config import parse_settings

FIELD_CONFIG = "field"

CONFIG_DEF = ConfigDef().define(
    FIELD_CONFIG,
    ConfigType.STRING,
    NO_DEFAULT,
    importance=Importance.MEDIUM,
    documentation="Field name for the single field that will be created in the resulting Struct or Map.",
)


class HoistField(RecordSide, Transformation[ConnectRecord]):
    """Wrap data in a struct or map with a single field named by ``field``."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(type(self).__name__, CONFIG_DEF, configs)
        self._field_name: str = settings[FIELD_CONFIG]
        self._schema_cache = SchemaUpdateCache()

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        self._schema_cache.clear()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, {self._field_name: value})
        updated_schema = self._schema_cache.get_or_build(schema, self._wrapping_schema)
        return self.new_record(record, updated_schema, Struct(updated_schema).put(self._field_name, value))

    def _wrapping_schema(self, schema: Schema) -> Schema:
        return Schema(Type.STRUCT, fields=(Field(self._field_name, 0, schema),))


class HoistFieldKey(KeySide, HoistField):
    """HoistField$Key: wrap the record key."""


class HoistFieldValue(ValueSide, HoistField):
    """HoistField$Value: wrap the record value."""
