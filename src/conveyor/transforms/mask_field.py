"""MaskField: replace fields with the null value of their type, or with a configured replacement."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, NonEmptyString
from conveyor.data import ConnectRecord, DataError, Date, Decimal, Schema, Struct, Time, Timestamp, Type
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import StructOrMapTransformation

FIELDS_CONFIG = "fields"
REPLACEMENT_CONFIG = "replacement"
_PURPOSE = "mask fields"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_INTEGER_BOUNDS = {
    Type.INT8: (-(2**7), 2**7),
    Type.INT16: (-(2**15), 2**15),
    Type.INT32: (-(2**31), 2**31),
    Type.INT64: (-(2**63), 2**63),
}


_NULL_BY_LOGICAL_NAME: dict[str, Callable[[], Any]] = {
    Decimal.LOGICAL_NAME: lambda: decimal.Decimal(0),
    Date.LOGICAL_NAME: lambda: _EPOCH.date(),
    Time.LOGICAL_NAME: lambda: dt.time(0),
    Timestamp.LOGICAL_NAME: lambda: _EPOCH,
}
_NULL_BY_TYPE: dict[Type, Callable[[], Any]] = {
    Type.BOOLEAN: lambda: False,
    Type.INT8: lambda: 0,
    Type.INT16: lambda: 0,
    Type.INT32: lambda: 0,
    Type.INT64: lambda: 0,
    Type.FLOAT32: lambda: 0.0,
    Type.FLOAT64: lambda: 0.0,
    Type.STRING: lambda: "",
    Type.ARRAY: list,
    Type.MAP: dict,
}
_NULL_BY_PYTHON_TYPE: tuple[tuple[type, Callable[[], Any]], ...] = (
    (bool, lambda: False),
    (int, lambda: 0),
    (float, lambda: 0.0),
    (decimal.Decimal, lambda: decimal.Decimal(0)),
    (str, lambda: ""),
    (dt.datetime, lambda: _EPOCH),
    (dt.date, lambda: _EPOCH.date()),
    (dt.time, lambda: dt.time(0)),
    (list, list),
    (dict, dict),
)
_REPLACEABLE_KINDS: tuple[tuple[type, Type], ...] = (
    (bool, Type.BOOLEAN),
    (int, Type.INT64),
    (float, Type.FLOAT64),
    (decimal.Decimal, Type.BYTES),
    (str, Type.STRING),
)


def _null_of_schema(schema: Schema) -> Any:
    null = _NULL_BY_LOGICAL_NAME.get(schema.name) if schema.name else None
    if null is None:
        null = _NULL_BY_TYPE.get(schema.type)
    if null is None:
        raise DataError(f"Cannot mask value of type {schema.type.name}")
    return null()


def _null_of_value(value: Any) -> Any:
    for kind, null in _NULL_BY_PYTHON_TYPE:
        if isinstance(value, kind):
            return null()
    raise DataError(f"Cannot mask value of type {type(value).__name__}")


def _replacement_of_type(kind: Type, value_type: str, replacement: str) -> Any:
    try:
        if kind in _INTEGER_BOUNDS:
            number = int(replacement.strip())
            low, high = _INTEGER_BOUNDS[kind]
            if not low <= number < high:
                raise ValueError(replacement)
            return number
        if kind in (Type.FLOAT32, Type.FLOAT64):
            return float(replacement)
        if kind is Type.BYTES:
            return decimal.Decimal(replacement)
    except (ValueError, decimal.InvalidOperation):
        raise DataError(f"Unable to convert {replacement} ({value_type}) to number") from None
    if kind is Type.STRING:
        return replacement
    raise DataError(f"Cannot mask value of type {value_type} with custom replacement.")


def _python_kind(value: Any) -> Type | None:
    """The Connect type a custom replacement of ``value`` is parsed as (None when it cannot be)."""
    return next((kind for python_type, kind in _REPLACEABLE_KINDS if isinstance(value, python_type)), None)


class MaskField(StructOrMapTransformation):
    """Mask ``fields`` with their type's null value (0, false, "", empty, the epoch) or ``replacement``."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(
            FIELDS_CONFIG,
            ConfigType.LIST,
            importance=Importance.HIGH,
            documentation="Names of fields to mask.",
        )
        .define(
            REPLACEMENT_CONFIG,
            ConfigType.STRING,
            default=None,
            validator=NonEmptyString(),
            importance=Importance.LOW,
            documentation="Custom value replacement, that will be applied to all 'fields' values "
            "(numeric or non-empty string values only).",
        )
    )
    NULL_PASSES_THROUGH = False

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._masked = frozenset(self.non_empty_list(settings, FIELDS_CONFIG))
        self._replacement: str | None = settings[REPLACEMENT_CONFIG]

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        updated = dict(require_map(value, _PURPOSE))
        for name in self._masked:
            if name in updated:
                updated[name] = self._mask_schemaless(updated[name])
        return self.new_record(record, None, updated)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        struct = require_struct(value, _PURPOSE)
        updated = Struct(struct.schema)
        for field in struct.schema.fields:
            original = self.field_value(struct, field)
            if field.name in self._masked and original is not None:
                updated.put(field.name, self._mask_with_schema(field.schema))
            else:
                updated.put(field.name, original)
        return self.new_record(record, schema, updated)

    def _mask_with_schema(self, schema: Schema) -> Any:
        if self._replacement is None:
            return _null_of_schema(schema)
        kind = schema.type
        if schema.name is not None and schema.name != Decimal.LOGICAL_NAME:
            raise DataError(f"Cannot mask value of type {schema.name} with custom replacement.")
        if kind is Type.BYTES and schema.name != Decimal.LOGICAL_NAME:
            raise DataError("Cannot mask value of type BYTES with custom replacement.")
        return _replacement_of_type(kind, schema.type.name, self._replacement)

    def _mask_schemaless(self, value: Any) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            return _null_of_value(value)
        kind = _python_kind(value)
        if kind is None or kind is Type.BOOLEAN:
            raise DataError(f"Cannot mask value of type {type(value).__name__} with custom replacement.")
        return _replacement_of_type(kind, type(value).__name__, self._replacement)


class MaskFieldKey(KeySide, MaskField):
    """MaskField$Key: mask fields of the record key."""


class MaskFieldValue(ValueSide, MaskField):
    """MaskField$Value: mask fields of the record value."""
