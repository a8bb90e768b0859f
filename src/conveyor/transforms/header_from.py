"""HeaderFrom: copy or move fields of the key or value into headers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, ValidString
from conveyor.data import ConnectRecord, DataError, Schema, Struct
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import StructOrMapTransformation

FIELDS_CONFIG = "fields"
HEADERS_CONFIG = "headers"
OPERATION_CONFIG = "operation"
MOVE = "move"
COPY = "copy"


class HeaderFrom(StructOrMapTransformation):
    """Add a header per configured field (with the field's schema), removing the field when moving."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(
            FIELDS_CONFIG,
            ConfigType.LIST,
            importance=Importance.HIGH,
            documentation="Field names in the record whose values are to be copied or moved to headers.",
        )
        .define(
            HEADERS_CONFIG,
            ConfigType.LIST,
            importance=Importance.HIGH,
            documentation="Header names, in the same order as the field names listed in the fields "
            "configuration property.",
        )
        .define(
            OPERATION_CONFIG,
            ConfigType.STRING,
            validator=ValidString.in_(MOVE, COPY),
            importance=Importance.HIGH,
            documentation="Either <code>move</code> if the fields are to be moved to the headers "
            "(removed from the "
            "key/value), or <code>copy</code> if the fields are to be copied to the headers (retained "
            "in the key/value).",
        )
    )
    NULL_PASSES_THROUGH = False

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._fields = self.non_empty_list(settings, FIELDS_CONFIG)
        self._headers = self.non_empty_list(settings, HEADERS_CONFIG)
        if len(self._fields) != len(self._headers):
            raise self.settings_error(
                ConfigError(
                    f"'{FIELDS_CONFIG}' config must have the same number of elements "
                    f"as '{HEADERS_CONFIG}' config."
                )
            )
        self._move = settings[OPERATION_CONFIG] == MOVE
        self._purpose = f"header {MOVE if self._move else COPY}"

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        mapping = require_map(value, self._purpose)
        headers = record.headers.copy()
        updated = dict(mapping)
        for field_name, header_name in zip(self._fields, self._headers, strict=True):
            headers.add(header_name, mapping.get(field_name))
            if self._move:
                updated.pop(field_name, None)
        return self.new_record(record, None, updated, headers)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        struct = require_struct(value, self._purpose)
        headers = record.headers.copy()
        for field_name, header_name in zip(self._fields, self._headers, strict=True):
            field = schema.field(field_name)
            if field is None:
                raise DataError(f"Field does not exist: {field_name}")
            headers.add(header_name, self.field_value(struct, field_name), field.schema)
        if not self._move:
            return self.new_record(record, schema, struct, headers)
        updated_schema = self.cached_schema(schema, self._schema_without_moved_fields)
        updated_struct = Struct(updated_schema)
        for field in updated_schema.fields:
            updated_struct.put(field.name, self.field_value(struct, field.name))
        return self.new_record(record, updated_schema, updated_struct, headers)

    def _schema_without_moved_fields(self, schema: Schema) -> Schema:
        moved = frozenset(self._fields)
        kept = [(field.name, field.schema) for field in schema.fields if field.name not in moved]
        return struct_schema_like(schema, kept, optional=schema.optional)


class HeaderFromKey(KeySide, HeaderFrom):
    """HeaderFrom$Key: take the fields from the record key."""


class HeaderFromValue(ValueSide, HeaderFrom):
    """HeaderFrom$Value: take the fields from the record value."""
