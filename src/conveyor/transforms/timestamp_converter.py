"""TimestampConverter: convert timestamps between unix numbers, formatted strings and Connect's date types."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.api import ConfigDef, ConfigError, ConfigType, Importance, ValidString
from conveyor.data import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    ConnectError,
    ConnectRecord,
    DataError,
    Date,
    Schema,
    Struct,
    Time,
    Timestamp,
    Type,
)
from conveyor.data.logical import epoch_millis
from conveyor.transforms.date_format import JavaDateFormat
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct_or_none
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import SidedTransformation

FIELD_CONFIG = "field"
TARGET_TYPE_CONFIG = "target.type"
FORMAT_CONFIG = "format"
UNIX_PRECISION_CONFIG = "unix.precision"

TYPE_STRING = "string"
TYPE_UNIX = "unix"
TYPE_DATE = "Date"
TYPE_TIME = "Time"
TYPE_TIMESTAMP = "Timestamp"

_MILLIS_PER_DAY = 86_400_000
_EPOCH_DATE = dt.date(1970, 1, 1)
_PURPOSE = "converting timestamp formats"

_TARGET_SCHEMAS: dict[str, dict[bool, Schema]] = {
    TYPE_STRING: {False: STRING_SCHEMA, True: OPTIONAL_STRING_SCHEMA},
    TYPE_UNIX: {False: INT64_SCHEMA, True: OPTIONAL_INT64_SCHEMA},
    TYPE_DATE: {False: Date.SCHEMA, True: Date.builder().optional().build()},
    TYPE_TIME: {False: Time.SCHEMA, True: Time.builder().optional().build()},
    TYPE_TIMESTAMP: {False: Timestamp.SCHEMA, True: Timestamp.builder().optional().build()},
}


def _truncating_division(numerator: int, denominator: int) -> int:
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


@dataclass(frozen=True)
class TimestampTranslator:
    """Converts one representation to and from epoch milliseconds, the common form between them."""

    target_type: str
    date_format: JavaDateFormat | None
    unix_precision: str

    def schema(self, optional: bool) -> Schema:
        """The schema of the target representation."""
        return _TARGET_SCHEMAS[self.target_type][optional]

    def to_millis(self, kind: str, value: Any) -> int:
        """Epoch milliseconds of ``value``, which is in representation ``kind``."""
        if kind == TYPE_STRING:
            if not isinstance(value, str):
                raise DataError(f"Expected string timestamp to be a String, but found {type(value).__name__}")
            assert self.date_format is not None
            try:
                return self.date_format.parse(value)
            except ValueError as error:
                raise DataError(
                    f"Could not parse timestamp: value ({value}) does not match pattern "
                    f"({self.date_format.pattern})"
                ) from error
        if kind == TYPE_UNIX:
            if isinstance(value, bool) or not isinstance(value, int):
                raise DataError(f"Expected Unix timestamp to be a Long, but found {type(value).__name__}")
            return self._unix_to_millis(value)
        if kind == TYPE_TIMESTAMP and isinstance(value, dt.datetime):
            return epoch_millis(value)
        if kind == TYPE_DATE and isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return (value - _EPOCH_DATE).days * _MILLIS_PER_DAY
        if kind == TYPE_TIME and isinstance(value, dt.time):
            return Time.from_logical(Time.SCHEMA, value)
        raise DataError(f"Expected {kind} to be a {_PYTHON_TYPES[kind]}, but found {type(value).__name__}")

    def from_millis(self, millis: int) -> Any:
        """``millis`` in this translator's target representation."""
        if self.target_type == TYPE_STRING:
            assert self.date_format is not None
            return self.date_format.format(millis)
        if self.target_type == TYPE_UNIX:
            if self.unix_precision == "seconds":
                return _truncating_division(millis, 1000)
            if self.unix_precision == "microseconds":
                return millis * 1000
            if self.unix_precision == "nanoseconds":
                return millis * 1_000_000
            return millis
        if self.target_type == TYPE_DATE:
            return Date.to_logical(Date.SCHEMA, millis // _MILLIS_PER_DAY)
        if self.target_type == TYPE_TIME:
            return Time.to_logical(Time.SCHEMA, millis % _MILLIS_PER_DAY)
        return Timestamp.to_logical(Timestamp.SCHEMA, millis)

    def _unix_to_millis(self, value: int) -> int:
        if self.unix_precision == "seconds":
            return value * 1000
        if self.unix_precision == "microseconds":
            return _truncating_division(value, 1000)
        if self.unix_precision == "nanoseconds":
            return _truncating_division(value, 1_000_000)
        return value


_PYTHON_TYPES = {TYPE_DATE: "datetime.date", TYPE_TIME: "datetime.time", TYPE_TIMESTAMP: "datetime.datetime"}


def kind_of_schema(schema: Schema) -> str:
    """The timestamp representation a schema describes (a plain STRING is formatted text, INT64 is unix)."""
    by_name = {
        Timestamp.LOGICAL_NAME: TYPE_TIMESTAMP,
        Date.LOGICAL_NAME: TYPE_DATE,
        Time.LOGICAL_NAME: TYPE_TIME,
    }
    if schema.name in by_name:
        return by_name[schema.name]
    if schema.type is Type.STRING:
        return TYPE_STRING
    if schema.type is Type.INT64:
        return TYPE_UNIX
    raise ConnectError(f"Schema {schema!r} does not correspond to a known timestamp type format")


def kind_of_value(value: Any) -> str:
    """The timestamp representation of a schemaless value."""
    if isinstance(value, dt.datetime):
        return TYPE_TIMESTAMP
    if isinstance(value, dt.date):
        return TYPE_DATE
    if isinstance(value, dt.time):
        return TYPE_TIME
    if isinstance(value, int) and not isinstance(value, bool):
        return TYPE_UNIX
    if isinstance(value, str):
        return TYPE_STRING
    raise DataError(f"TimestampConverter does not support {type(value).__name__} objects as timestamps")


class TimestampConverter(SidedTransformation):
    """Convert a timestamp (the whole key or value, or one ``field``) to ``target.type``."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(
            FIELD_CONFIG,
            ConfigType.STRING,
            default="",
            importance=Importance.HIGH,
            documentation="The field containing the timestamp, or empty if the entire value is a timestamp",
        )
        .define(
            TARGET_TYPE_CONFIG,
            ConfigType.STRING,
            validator=ValidString.in_(TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP),
            importance=Importance.HIGH,
            documentation="The desired timestamp representation: string, unix, Date, Time, or Timestamp",
        )
        .define(
            FORMAT_CONFIG,
            ConfigType.STRING,
            default="",
            importance=Importance.MEDIUM,
            documentation="A SimpleDateFormat-compatible format for the timestamp. "
            "Used to generate the output when "
            "type=string or used to parse the input if the input is a string.",
        )
        .define(
            UNIX_PRECISION_CONFIG,
            ConfigType.STRING,
            default="milliseconds",
            validator=ValidString.in_("nanoseconds", "microseconds", "milliseconds", "seconds"),
            importance=Importance.LOW,
            documentation="The desired Unix precision for the timestamp: seconds, milliseconds, "
            "microseconds, or nanoseconds. Used to generate the output when type=unix or used to parse "
            "the input if the input is a Long.",
        )
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        target_type: str = settings[TARGET_TYPE_CONFIG]
        pattern: str = settings[FORMAT_CONFIG]
        if target_type == TYPE_STRING and not pattern.strip():
            raise self.settings_error(
                ConfigError(
                    "TimestampConverter requires format option to be specified when using string timestamps"
                )
            )
        date_format = None
        if pattern.strip():
            try:
                date_format = JavaDateFormat(pattern)
            except ValueError as error:
                raise self.settings_error(
                    ConfigError(
                        FORMAT_CONFIG,
                        pattern,
                        "TimestampConverter requires a SimpleDateFormat-compatible pattern "
                        f"for string timestamps: {error}",
                    )
                ) from error
        self._field: str = settings[FIELD_CONFIG]
        self._translator = TimestampTranslator(target_type, date_format, settings[UNIX_PRECISION_CONFIG])

    def convert(self, value: Any, kind: str | None = None) -> Any:
        """``value`` converted to the target type; None stays None; ``kind`` is inferred when not given."""
        if value is None:
            return None
        if (kind or kind_of_value(value)) == TYPE_STRING and self._translator.date_format is None:
            raise DataError(
                "TimestampConverter requires format option to be specified to parse string timestamps"
            )
        millis = self._translator.to_millis(kind or kind_of_value(value), value)
        return self._translator.from_millis(millis)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if value is None or not self._field:
                return self.new_record(record, None, self.convert(value))
            updated = dict(require_map(value, _PURPOSE))
            updated[self._field] = self.convert(updated.get(self._field))
            return self.new_record(record, None, updated)
        if not self._field:
            return self.new_record(
                record, self._translator.schema(schema.optional), self.convert(value, kind_of_schema(schema))
            )
        struct = require_struct_or_none(value, _PURPOSE)
        updated_schema = self.cached_schema(schema, self._updated_schema)
        return self.new_record(record, updated_schema, self._converted_struct(struct, updated_schema))

    def _updated_schema(self, schema: Schema) -> Schema:
        fields = [
            (
                field.name,
                self._translator.schema(field.schema.optional) if field.name == self._field else field.schema,
            )
            for field in schema.fields
        ]
        without_default = struct_schema_like(schema, fields, optional=schema.optional)
        if schema.default is None:
            return without_default
        default = self._converted_struct(schema.default, without_default)
        return struct_schema_like(schema, fields, optional=schema.optional, default=default)

    def _converted_struct(self, struct: Struct | None, updated_schema: Schema) -> Struct | None:
        if struct is None:
            return None
        updated = Struct(updated_schema)
        for field in struct.schema.fields:
            original = self.field_value(struct, field)
            if field.name == self._field:
                original = self.convert(original, kind_of_schema(field.schema))
            updated.put(field.name, original)
        return updated


class TimestampConverterKey(KeySide, TimestampConverter):
    """TimestampConverter$Key: convert in the record key."""


class TimestampConverterValue(ValueSide, TimestampConverter):
    """TimestampConverter$Value: convert in the record value."""
