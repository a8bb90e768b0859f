"""SetSchemaMetadata: set the name and/or version of the key's or value's schema."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance
from conveyor.data import ConnectRecord, Schema, Struct, Type
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_schema
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import SidedTransformation

SCHEMA_NAME_CONFIG = "schema.name"
SCHEMA_VERSION_CONFIG = "schema.version"
_PURPOSE = "updating schema metadata"


class SetSchemaMetadata(SidedTransformation):
    """Rename or re-version a schema; a struct value is rebuilt against the updated schema."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(
            SCHEMA_NAME_CONFIG,
            ConfigType.STRING,
            default=None,
            importance=Importance.HIGH,
            documentation="Schema name to set.",
        )
        .define(
            SCHEMA_VERSION_CONFIG,
            ConfigType.INT,
            default=None,
            importance=Importance.HIGH,
            documentation="Schema version to set.",
        )
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._name: str | None = settings[SCHEMA_NAME_CONFIG]
        self._version: int | None = settings[SCHEMA_VERSION_CONFIG]
        if self._name is None and self._version is None:
            raise self.settings_error(ConfigError("Neither schema name nor version configured"))

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = require_schema(self.operating_schema(record), _PURPOSE)
        updated_schema = dataclasses.replace(
            schema,
            name=self._name if self._name is not None else schema.name,
            version=self._version if self._version is not None else schema.version,
        )
        value = self.operating_value(record)
        if isinstance(value, Struct) and updated_schema.type is Type.STRUCT:
            value = self._rebuilt(value, updated_schema)
        return self.new_record(record, updated_schema, value)

    def _rebuilt(self, value: Struct, updated_schema: Schema) -> Struct:
        rebuilt = Struct(updated_schema)
        for field in updated_schema.fields:
            rebuilt.put(field.name, self.field_value(value, field.name))
        return rebuilt


class SetSchemaMetadataKey(KeySide, SetSchemaMetadata):
    """SetSchemaMetadata$Key: update the key schema."""


class SetSchemaMetadataValue(ValueSide, SetSchemaMetadata):
    """SetSchemaMetadata$Value: update the value schema."""
