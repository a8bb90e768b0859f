"""HoistField: wrap the whole key or value in a struct (schema-ful) or map (schemaless) under one field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance
from conveyor.data import ConnectRecord, Field, Schema, Struct, Type
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.transformation_base import StructOrMapTransformation

FIELD_CONFIG = "field"


class HoistField(StructOrMapTransformation):
    """Wrap data in a struct or map with a single field named by ``field``."""

    CONFIG_DEF = ConfigDef().define(
        FIELD_CONFIG,
        ConfigType.STRING,
        importance=Importance.MEDIUM,
        documentation="Field name for the single field that will be created in the resulting Struct or Map.",
    )
    NULL_PASSES_THROUGH = False

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._field_name: str = settings[FIELD_CONFIG]

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        return self.new_record(record, None, {self._field_name: value})

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        updated_schema = self.cached_schema(schema, self._wrapping_schema)
        return self.new_record(record, updated_schema, Struct(updated_schema).put(self._field_name, value))

    def _wrapping_schema(self, schema: Schema) -> Schema:
        return Schema(Type.STRUCT, fields=(Field(self._field_name, 0, schema),))


class HoistFieldKey(KeySide, HoistField):
    """HoistField$Key: wrap the record key."""


class HoistFieldValue(ValueSide, HoistField):
    """HoistField$Value: wrap the record value."""
