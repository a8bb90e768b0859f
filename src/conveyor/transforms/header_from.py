"""HeaderFrom: copy or move fields of the key or value into headers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    Transformation,
    ValidString,
)
from conveyor.data import ConnectRecord, DataError, Schema, Struct
from conveyor.transforms.record_side import KeySide, RecordSide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_cache import SchemaUpdateCache
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.struct_values import field_value
from conveyor.transforms.transform_config import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    REPLACE_NULL_WITH_DEFAULT_DOC,
    invalid_setting,
    parse_settings,
    settings_error,
)

FIELDS_CONFIG = "fields"
HEADERS_CONFIG = "headers"
OPERATION_CONFIG = "operation"
MOVE = "move"
COPY = "copy"

CONFIG_DEF = (
    ConfigDef()
    .define(
        FIELDS_CONFIG,
        ConfigType.LIST,
        NO_DEFAULT,
        importance=Importance.HIGH,
        documentation="Field names in the record whose values are to be copied or moved to headers.",
    )
    .define(
        HEADERS_CONFIG,
        ConfigType.LIST,
        NO_DEFAULT,
        importance=Importance.HIGH,
        documentation="Header names, in the same order as the field names listed in the fields configuration "
        "property.",
    )
    .define(
        OPERATION_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        ValidString.in_(MOVE, COPY),
        importance=Importance.HIGH,
        documentation="Either <code>move</code> if the fields are to be moved to the headers "
        "(removed from the "
        "key/value), or <code>copy</code> if the fields are to be copied to the headers (retained "
        "in the key/value).",
    )
    .define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        documentation=REPLACE_NULL_WITH_DEFAULT_DOC,
    )
)


class HeaderFrom(RecordSide, Transformation[ConnectRecord]):
    """Add a header per configured field (with the field's schema), removing the field when moving."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        owner = type(self).__name__
        settings = parse_settings(owner, CONFIG_DEF, configs)
        self._fields: list[str] = settings[FIELDS_CONFIG]
        self._headers: list[str] = settings[HEADERS_CONFIG]
        for name in (FIELDS_CONFIG, HEADERS_CONFIG):
            if not settings[name]:
                raise invalid_setting(owner, name, settings[name], "Empty list")
        if len(self._fields) != len(self._headers):
            raise settings_error(
                owner,
                ConfigError(
                    f"'{FIELDS_CONFIG}' config must have the same number of elements "
                    f"as '{HEADERS_CONFIG}' config."
                ),
            )
        self._move = settings[OPERATION_CONFIG] == MOVE
        self._replace_null_with_default: bool = settings[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schema_cache = SchemaUpdateCache()

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        self._schema_cache.clear()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        purpose = f"header {MOVE if self._move else COPY}"
        headers = record.headers.copy()
        if schema is None:
            mapping = require_map(value, purpose)
            updated = dict(mapping)
            for field_name, header_name in zip(self._fields, self._headers, strict=True):
                headers.add(header_name, mapping.get(field_name))
                if self._move:
                    updated.pop(field_name, None)
            return self.new_record(record, None, updated, headers)
        struct = require_struct(value, purpose)
        for field_name, header_name in zip(self._fields, self._headers, strict=True):
            field = schema.field(field_name)
            if field is None:
                raise DataError(f"Field does not exist: {field_name}")
            headers.add(
                header_name, field_value(struct, field_name, self._replace_null_with_default), field.schema
            )
        if not self._move:
            return self.new_record(record, schema, struct, headers)
        updated_schema = self._schema_cache.get_or_build(schema, self._schema_without_moved_fields)
        updated_struct = Struct(updated_schema)
        for field in updated_schema.fields:
            updated_struct.put(field.name, field_value(struct, field.name, self._replace_null_with_default))
        return self.new_record(record, updated_schema, updated_struct, headers)

    def _schema_without_moved_fields(self, schema: Schema) -> Schema:
        moved = frozenset(self._fields)
        kept = [(field.name, field.schema) for field in schema.fields if field.name not in moved]
        return struct_schema_like(schema, kept, optional=schema.optional)


class HeaderFromKey(KeySide, HeaderFrom):
    """HeaderFrom$Key: take the fields from the record key."""


class HeaderFromValue(ValueSide, HeaderFrom):
    """HeaderFrom$Value: take the fields from the record value."""
