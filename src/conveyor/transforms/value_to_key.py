"""ValueToKey: replace the record key with a struct or map of fields taken from the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, DataError, Field, Schema, Struct, Type
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_cache import SchemaUpdateCache
from conveyor.transforms.struct_values import field_value
from conveyor.transforms.transform_config import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    REPLACE_NULL_WITH_DEFAULT_DOC,
    invalid_setting,
    parse_settings,
)

FIELDS_CONFIG = "fields"
_PURPOSE = "copying fields from value to key"

CONFIG_DEF = (
    ConfigDef()
    .define(
        FIELDS_CONFIG,
        ConfigType.LIST,
        NO_DEFAULT,
        importance=Importance.HIGH,
        documentation="Field names on the record value to extract as the record key.",
    )
    .define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        documentation=REPLACE_NULL_WITH_DEFAULT_DOC,
    )
)


class ValueToKey(Transformation[ConnectRecord]):
    """Build the key from fields of the value: a struct with those fields' schemas, or a map."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(type(self).__name__, CONFIG_DEF, configs)
        fields: list[str] = settings[FIELDS_CONFIG]
        if not fields:
            raise invalid_setting(type(self).__name__, FIELDS_CONFIG, fields, "Empty list")
        self._fields = fields
        self._replace_null_with_default: bool = settings[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schema_cache = SchemaUpdateCache()

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        self._schema_cache.clear()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value_schema is None:
            value = require_map(record.value, _PURPOSE)
            key = {name: value.get(name) for name in self._fields}
            return record.new_record(key_schema=None, key=key)
        struct = require_struct(record.value, _PURPOSE)
        key_schema = self._schema_cache.get_or_build(record.value_schema, self._key_schema)
        key_struct = Struct(key_schema)
        for name in self._fields:
            key_struct.put(name, field_value(struct, name, self._replace_null_with_default))
        return record.new_record(key_schema=key_schema, key=key_struct)

    def _key_schema(self, value_schema: Schema) -> Schema:
        fields: list[Field] = []
        for name in self._fields:
            field = value_schema.field(name)
            if field is None:
                raise DataError(f"Field does not exist: {name}")
            fields.append(Field(name, len(fields), field.schema))
        return Schema(Type.STRUCT, fields=tuple(fields))
