"""ExtractField: replace the key or value with one of its fields (nested with ``field.syntax.version=V2``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Transformation, ValidString
from conveyor.data import ConnectRecord, DataError
from conveyor.transforms.field_path import (
    FIELD_SYNTAX_VERSION_CONFIG,
    FIELD_SYNTAX_VERSION_DOC,
    FieldSyntaxVersion,
    SingleFieldPath,
)
from conveyor.transforms.record_side import KeySide, RecordSide, ValueSide
from conveyor.transforms.requirements import require_map_or_none, require_struct_or_none
from conveyor.transforms.transform_config import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    REPLACE_NULL_WITH_DEFAULT_DOC,
    parse_settings,
)

FIELD_CONFIG = "field"
_PURPOSE = "field extraction"

CONFIG_DEF = (
    ConfigDef()
    .define(
        FIELD_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        importance=Importance.MEDIUM,
        documentation="Field name to extract.",
    )
    .define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        documentation=REPLACE_NULL_WITH_DEFAULT_DOC,
    )
    .define(
        FIELD_SYNTAX_VERSION_CONFIG,
        ConfigType.STRING,
        "V1",
        ValidString.in_("V1", "V2"),
        importance=Importance.HIGH,
        documentation=FIELD_SYNTAX_VERSION_DOC,
    )
)


class ExtractField(RecordSide, Transformation[ConnectRecord]):
    """Extract one field of a struct (schema-ful) or map (schemaless); a null key or value passes through."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        settings = parse_settings(type(self).__name__, CONFIG_DEF, configs)
        version = FieldSyntaxVersion.of(settings[FIELD_SYNTAX_VERSION_CONFIG])
        self._path = SingleFieldPath(settings[FIELD_CONFIG], version)
        self._replace_null_with_default: bool = settings[REPLACE_NULL_WITH_DEFAULT_CONFIG]

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def close(self) -> None:
        pass

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        if schema is None:
            mapping = require_map_or_none(self.operating_value(record), _PURPOSE)
            return self.new_record(
                record, None, None if mapping is None else self._path.value_from_map(mapping)
            )
        struct = require_struct_or_none(self.operating_value(record), _PURPOSE)
        field = self._path.field_from(schema)
        if field is None:
            raise DataError(f"Unknown field: {self._path.text}")
        extracted = (
            None if struct is None else self._path.value_from_struct(struct, self._replace_null_with_default)
        )
        return self.new_record(record, field.schema, extracted)


class ExtractFieldKey(KeySide, ExtractField):
    """ExtractField$Key: extract from the record key."""


class ExtractFieldValue(ValueSide, ExtractField):
    """ExtractField$Value: extract from the record value."""
