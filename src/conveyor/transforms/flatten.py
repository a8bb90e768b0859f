"""Flatten: turn nested structs (schema-ful) or maps (schemaless) into one level, joining field names."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, Transformation
from conveyor.data import ConnectRecord, DataError, Schema, Struct, Type
from conveyor.transforms.record_side import KeySide, RecordSide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct_or_none
from conveyor.transforms.schema_cache import SchemaUpdateCache
from conveyor.transforms.schema_util import infer_type, struct_schema_like
from conveyor.transforms.transform_config import parse_settings

DELIMITER_CONFIG = "delimiter"
_PURPOSE = "flattening"
_KEPT_AS_IS = frozenset(
    {
        Type.INT8,
        Type.INT16,
        Type.INT32,
        Type.INT64,
        Type.FLOAT32,
        Type.FLOAT64,
        Type.BOOLEAN,
        Type.STRING,
        Type.BYTES,
        Type.ARRAY,
        Type.MAP,
    }
)
_SCHEMALESS_KEPT_AS_IS = _KEPT_AS_IS - {Type.MAP}

CONFIG_DEF = ConfigDef().define(
    DELIMITER_CONFIG,
    ConfigType.STRING,
    ".",
    importance=Importance.MEDIUM,
    documentation="Delimiter to insert between field names from the input record when generating field names "
    "for the output record",
)


def _flattened_field_schema(original: Schema, optional: bool, default: Any) -> Schema:
    return dataclasses.replace(original, optional=optional, default=default, fields=())


class Flatten(RecordSide, Transformation[ConnectRecord]):
    """Flatten nested data; arrays (and, with a schema, maps) are kept as they are."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(type(self).__name__, CONFIG_DEF, configs)
        self._delimiter: str = settings[DELIMITER_CONFIG]
        self._schema_cache = SchemaUpdateCache()

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        self._schema_cache.clear()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if value is None:
                return record
            flattened: dict[str, Any] = {}
            self._flatten_map(require_map(value, _PURPOSE), "", flattened)
            return self.new_record(record, None, flattened)
        struct = require_struct_or_none(value, _PURPOSE)
        updated_schema = self._schema_cache.get_or_build(schema, self._flattened_schema)
        if struct is None:
            return self.new_record(record, updated_schema, None)
        updated = Struct(updated_schema)
        self._flatten_struct(struct, "", updated)
        return self.new_record(record, updated_schema, updated)

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else f"{prefix}{self._delimiter}{name}"

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, flattened: dict[str, Any]) -> None:
        for key, item in value.items():
            name = self._name(prefix, key)
            if item is None:
                flattened[name] = None
                continue
            kind = infer_type(item)
            if kind is Type.MAP:
                self._flatten_map(item, name, flattened)
            elif kind in _SCHEMALESS_KEPT_AS_IS:
                flattened[name] = item
            else:
                raise DataError(
                    f"Flatten transformation does not support {type(item).__name__} "
                    "for record without schemas "
                    f"(for field {name})."
                )

    def _flattened_schema(self, schema: Schema) -> Schema:
        fields: list[tuple[str, Schema]] = []
        self._collect_fields(schema, "", schema.optional, schema.default, fields)
        return struct_schema_like(schema, fields, optional=schema.optional)

    def _collect_fields(
        self,
        schema: Schema,
        prefix: str,
        optional: bool,
        parent_default: Struct | None,
        fields: list[tuple[str, Schema]],
    ) -> None:
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.optional
            default = field.schema.default
            if default is None and parent_default is not None:
                default = parent_default.get(field.name)
            if field.schema.type is Type.STRUCT:
                self._collect_fields(field.schema, name, field_optional, default, fields)
            elif field.schema.type in _KEPT_AS_IS:
                fields.append((name, _flattened_field_schema(field.schema, field_optional, default)))
            else:
                raise DataError(
                    f"Flatten transformation does not support {field.schema.type.name} "
                    "for record with schemas "
                    f"(for field {name})."
                )

    def _flatten_struct(self, struct: Struct, prefix: str, flattened: Struct) -> None:
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            item = struct.get(field.name)
            if field.schema.type is Type.STRUCT:
                if item is not None:
                    self._flatten_struct(item, name, flattened)
            else:
                flattened.put(name, item)


class FlattenKey(KeySide, Flatten):
    """Flatten$Key: flatten the record key."""


class FlattenValue(ValueSide, Flatten):
    """Flatten$Value: flatten the record value."""
