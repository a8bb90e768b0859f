"""ValueToKey: replace the record key with a struct or map of fields taken from the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance
from conveyor.data import ConnectRecord, DataError, Field, Schema, Struct, Type
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import ConfiguredTransformation

FIELDS_CONFIG = "fields"
_PURPOSE = "copying fields from value to key"


class ValueToKey(ConfiguredTransformation):
    """Build the key from fields of the value: a struct with those fields' schemas, or a map."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(
            FIELDS_CONFIG,
            ConfigType.LIST,
            importance=Importance.HIGH,
            documentation="Field names on the record value to extract as the record key.",
        )
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._fields = self.non_empty_list(settings, FIELDS_CONFIG)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value_schema is None:
            value = require_map(record.value, _PURPOSE)
            key = {name: value.get(name) for name in self._fields}
            return record.new_record(key_schema=None, key=key)
        struct = require_struct(record.value, _PURPOSE)
        key_schema = self.cached_schema(record.value_schema, self._key_schema)
        key_struct = Struct(key_schema)
        for name in self._fields:
            key_struct.put(name, self.field_value(struct, name))
        return record.new_record(key_schema=key_schema, key=key_struct)

    def _key_schema(self, value_schema: Schema) -> Schema:
        fields: list[Field] = []
        for name in self._fields:
            field = value_schema.field(name)
            if field is None:
                raise DataError(f"Field does not exist: {name}")
            fields.append(Field(name, len(fields), field.schema))
        return Schema(Type.STRUCT, fields=tuple(fields))
