"""ExtractField: replace the key or value with one of its fields (nested with ``field.syntax.version=V2``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance, ValidString
from conveyor.data import ConnectRecord, DataError
from conveyor.transforms.field_path import (
    FIELD_SYNTAX_VERSION_CONFIG,
    FIELD_SYNTAX_VERSION_DOC,
    FieldSyntaxVersion,
    SingleFieldPath,
)
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map_or_none, require_struct_or_none
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import SidedTransformation

FIELD_CONFIG = "field"
_PURPOSE = "field extraction"


class ExtractField(SidedTransformation):
    """Extract one field of a struct (schema-ful) or map (schemaless); a null key or value passes through."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(
            FIELD_CONFIG,
            ConfigType.STRING,
            importance=Importance.MEDIUM,
            documentation="Field name to extract.",
        )
    ).define(
        FIELD_SYNTAX_VERSION_CONFIG,
        ConfigType.STRING,
        default="V1",
        validator=ValidString.in_("V1", "V2"),
        importance=Importance.HIGH,
        documentation=FIELD_SYNTAX_VERSION_DOC,
    )

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        version = FieldSyntaxVersion.of(settings[FIELD_SYNTAX_VERSION_CONFIG])
        self._path = SingleFieldPath(settings[FIELD_CONFIG], version)

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
