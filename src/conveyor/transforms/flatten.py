"""Flatten: turn nested structs (schema-ful) or maps (schemaless) into one level, joining field names."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance
from conveyor.data import ConnectRecord, DataError, Schema, Struct, Type
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct_or_none
from conveyor.transforms.schema_util import infer_type, struct_schema_like
from conveyor.transforms.transformation_base import StructOrMapTransformation

DELIMITER_CONFIG = "delimiter"
_PURPOSE = "flattening"
_KEPT_AS_IS = frozenset(Type) - {Type.STRUCT}
_SCHEMALESS_KEPT_AS_IS = _KEPT_AS_IS - {Type.MAP}


def _flattened_field_schema(original: Schema, optional: bool, default: Any) -> Schema:
    return dataclasses.replace(original, optional=optional, default=default, fields=())


class Flatten(StructOrMapTransformation):
    """Flatten nested data; arrays (and, with a schema, maps) are kept as they are."""

    CONFIG_DEF = ConfigDef().define(
        DELIMITER_CONFIG,
        ConfigType.STRING,
        default=".",
        importance=Importance.MEDIUM,
        documentation="Delimiter to insert between field names from the input record "
        "when generating field names for the output record",
    )
    NULL_PASSES_THROUGH = False

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._delimiter: str = settings[DELIMITER_CONFIG]

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        if value is None:
            return record
        flattened: dict[str, Any] = {}
        self._flatten_map(require_map(value, _PURPOSE), "", flattened)
        return self.new_record(record, None, flattened)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        struct = require_struct_or_none(value, _PURPOSE)
        updated_schema = self.cached_schema(schema, self._flattened_schema)
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
