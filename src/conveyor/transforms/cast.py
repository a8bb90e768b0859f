"""Cast: change the type of fields, or of the whole key or value, e.g. to narrow an integer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, LambdaValidator
from conveyor.data import ConnectRecord, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from conveyor.transforms.cast_values import SUPPORTED_OUTPUT_TYPES, cast_value
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transform_config import define_replace_null_with_default, split_like_java
from conveyor.transforms.transformation_base import StructOrMapTransformation

SPEC_CONFIG = "spec"
_PURPOSE = "cast types"
_LOGICAL_NAMES = frozenset(
    {Decimal.LOGICAL_NAME, Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME}
)


def _output_type(text: str) -> Type:
    try:
        target = Type[text.strip().upper()]
    except KeyError:
        raise ConfigError(f"Invalid type found in casting spec: {text.strip()}") from None
    if target not in SUPPORTED_OUTPUT_TYPES:
        supported = ", ".join(t.name for t in SUPPORTED_OUTPUT_TYPES)
        raise ConfigError(
            f"Cast transformation does not support casting to {target.name}; supported types are {supported}"
        )
    return target


def parse_cast_spec(mappings: list[str]) -> dict[str | None, Type]:
    """``["field:type", ...]``, or a single ``["type"]`` for the whole value (keyed by None)."""
    if not mappings:
        raise ConfigError("Must specify at least one field to cast.")
    casts: dict[str | None, Type] = {}
    for mapping in mappings:
        parts = split_like_java(mapping, ":")
        if len(parts) > 2:
            raise ConfigError(SPEC_CONFIG, mappings, f"Invalid cast mapping: {mapping}")
        if len(parts) == 1:
            casts[None] = _output_type(parts[0])
        else:
            casts[parts[0].strip()] = _output_type(parts[1])
    if None in casts and len(mappings) > 1:
        raise ConfigError(
            "Cast transformations that specify a type to cast the entire value to "
            "may only specify a single cast "
            "in their spec"
        )
    return casts


def _validate_spec(_name: str, value: Any) -> None:
    parse_cast_spec(value or [])


def _primitive_schema(target: Type, optional: bool, default: Any, like: Schema | None = None) -> Schema:
    keep_basics = like is not None and like.name not in _LOGICAL_NAMES
    return Schema(
        target,
        optional=optional,
        default=default,
        name=like.name if like is not None and keep_basics else None,
        version=like.version if like is not None and keep_basics else None,
        doc=like.doc if like is not None else None,
        parameters=like.parameters if like is not None and keep_basics else {},
    )


class Cast(StructOrMapTransformation):
    """Cast fields of a struct or map, or the whole key or value, to a primitive type other than bytes."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(
            SPEC_CONFIG,
            ConfigType.LIST,
            validator=LambdaValidator(
                _validate_spec, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
            ),
            importance=Importance.HIGH,
            documentation="List of fields and the type to cast them to of the form field1:type,field2:type "
            "to cast "
            "fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, "
            "int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can "
            "only be cast to string.",
        )
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._casts = parse_cast_spec(settings[SPEC_CONFIG])
        self._whole_value_type = self._casts.get(None)

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        if self._whole_value_type is not None:
            return self.new_record(record, None, cast_value(value, None, self._whole_value_type))
        mapping = require_map(value, _PURPOSE)
        updated = dict(mapping)
        for name, target in self._casts.items():
            if name is not None:
                updated[name] = cast_value(mapping.get(name), None, target)
        return self.new_record(record, None, updated)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        updated_schema = self.cached_schema(schema, self._updated_schema)
        if self._whole_value_type is not None:
            return self.new_record(
                record, updated_schema, cast_value(value, schema.type, self._whole_value_type)
            )
        struct = require_struct(value, _PURPOSE)
        updated = Struct(updated_schema)
        for field in struct.schema.fields:
            original = self.field_value(struct, field)
            target = self._casts.get(field.name)
            updated.put(
                field.name, original if target is None else cast_value(original, field.schema.type, target)
            )
        return self.new_record(record, updated_schema, updated)

    def _updated_schema(self, schema: Schema) -> Schema:
        if self._whole_value_type is not None:
            default = cast_value(schema.default, schema.type, self._whole_value_type)
            return _primitive_schema(self._whole_value_type, schema.optional, default, like=schema)
        if schema.type is not Type.STRUCT:
            return schema
        fields = []
        for field in schema.fields:
            target = self._casts.get(field.name)
            if target is None:
                fields.append((field.name, field.schema))
            else:
                default = cast_value(field.schema.default, field.schema.type, target)
                fields.append((field.name, _primitive_schema(target, field.schema.optional, default)))
        return struct_schema_like(schema, fields, optional=schema.optional)


class CastKey(KeySide, Cast):
    """Cast$Key: cast the record key or its fields."""


class CastValue(ValueSide, Cast):
    """Cast$Value: cast the record value or its fields."""
