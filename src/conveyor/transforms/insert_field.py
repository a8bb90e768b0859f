"""InsertField: add the record's topic, partition, offset, timestamp or a static value as fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conveyor.api import ConfigDef, ConfigType, Importance
from conveyor.data import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    ConnectRecord,
    DataError,
    Schema,
    SinkRecord,
    Struct,
    Timestamp,
)
from conveyor.transforms.record_side import KeySide, ValueSide
from conveyor.transforms.requirements import require_map, require_struct
from conveyor.transforms.schema_util import struct_schema_like
from conveyor.transforms.transform_config import define_replace_null_with_default
from conveyor.transforms.transformation_base import StructOrMapTransformation

TOPIC_FIELD = "topic.field"
PARTITION_FIELD = "partition.field"
OFFSET_FIELD = "offset.field"
TIMESTAMP_FIELD = "timestamp.field"
STATIC_FIELD = "static.field"
STATIC_VALUE = "static.value"

_OPTIONALITY_DOC = (
    "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional "
    "(the default)."
)
_OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build()
_PURPOSE = "field insertion"

_INSERTED_FIELD_DOCS = {
    TOPIC_FIELD: "Field name for Kafka topic.",
    PARTITION_FIELD: "Field name for Kafka partition.",
    OFFSET_FIELD: "Field name for Kafka offset - only applicable to sink connectors.",
    TIMESTAMP_FIELD: "Field name for record timestamp.",
    STATIC_FIELD: "Field name for static data field.",
}


def _config_def() -> ConfigDef:
    config_def = ConfigDef()
    for name, doc in _INSERTED_FIELD_DOCS.items():
        config_def.define(
            name,
            ConfigType.STRING,
            default=None,
            importance=Importance.MEDIUM,
            documentation=f"{doc} {_OPTIONALITY_DOC}",
        )
    config_def.define(
        STATIC_VALUE,
        ConfigType.STRING,
        default=None,
        importance=Importance.MEDIUM,
        documentation="Static field value, if field name configured.",
    )
    return define_replace_null_with_default(config_def)


@dataclass(frozen=True)
class InsertionSpec:
    """A configured field name; a trailing ``!`` makes the inserted field required, ``?`` optional."""

    name: str
    optional: bool

    @classmethod
    def parse(cls, spec: str | None) -> InsertionSpec | None:
        if spec is None:
            return None
        if spec.endswith("?"):
            return cls(spec[:-1], True)
        if spec.endswith("!"):
            return cls(spec[:-1], False)
        return cls(spec, True)

    def schema(self, required: Schema, optional: Schema) -> Schema:
        return optional if self.optional else required


class InsertField(StructOrMapTransformation):
    """Insert record metadata (topic, partition, offset, timestamp) or a static string as fields."""

    CONFIG_DEF = _config_def()

    def configure_settings(self, settings: Mapping[str, Any]) -> None:
        self._topic = InsertionSpec.parse(settings[TOPIC_FIELD])
        self._partition = InsertionSpec.parse(settings[PARTITION_FIELD])
        self._offset = InsertionSpec.parse(settings[OFFSET_FIELD])
        self._timestamp = InsertionSpec.parse(settings[TIMESTAMP_FIELD])
        self._static = InsertionSpec.parse(settings[STATIC_FIELD])
        self._static_value: str | None = settings[STATIC_VALUE]

    def _metadata(self, record: ConnectRecord) -> list[tuple[InsertionSpec, Any]]:
        inserted: list[tuple[InsertionSpec, Any]] = []
        if self._topic is not None:
            inserted.append((self._topic, record.topic))
        if self._partition is not None and record.kafka_partition is not None:
            inserted.append((self._partition, record.kafka_partition))
        if self._offset is not None:
            if not isinstance(record, SinkRecord):
                raise DataError(
                    "Offset insertion is only supported for sink connectors, record is of type: "
                    f"{type(record).__name__}"
                )
            inserted.append((self._offset, record.kafka_offset))
        if self._timestamp is not None and record.timestamp is not None:
            inserted.append((self._timestamp, record.timestamp))
        if self._static is not None and self._static_value is not None:
            inserted.append((self._static, self._static_value))
        return inserted

    def apply_schemaless(self, record: ConnectRecord, value: Any) -> ConnectRecord:
        updated = dict(require_map(value, _PURPOSE))
        for spec, inserted in self._metadata(record):
            updated[spec.name] = inserted
        return self.new_record(record, None, updated)

    def apply_with_schema(self, record: ConnectRecord, schema: Schema, value: Any) -> ConnectRecord:
        struct = require_struct(value, _PURPOSE)
        updated_schema = self.cached_schema(schema, self._updated_schema)
        updated = Struct(updated_schema)
        for field in schema.fields:
            updated.put(field.name, self.field_value(struct, field.name))
        for spec, inserted in self._metadata(record):
            if spec is self._timestamp:
                inserted = Timestamp.to_logical(Timestamp.SCHEMA, inserted)
            updated.put(spec.name, inserted)
        return self.new_record(record, updated_schema, updated)

    def _updated_schema(self, schema: Schema) -> Schema:
        fields = [(field.name, field.schema) for field in schema.fields]
        if self._topic is not None:
            fields.append((self._topic.name, self._topic.schema(STRING_SCHEMA, OPTIONAL_STRING_SCHEMA)))
        if self._partition is not None:
            fields.append((self._partition.name, self._partition.schema(INT32_SCHEMA, OPTIONAL_INT32_SCHEMA)))
        if self._offset is not None:
            fields.append((self._offset.name, self._offset.schema(INT64_SCHEMA, OPTIONAL_INT64_SCHEMA)))
        if self._timestamp is not None:
            fields.append(
                (self._timestamp.name, self._timestamp.schema(Timestamp.SCHEMA, _OPTIONAL_TIMESTAMP_SCHEMA))
            )
        if self._static is not None:
            fields.append((self._static.name, self._static.schema(STRING_SCHEMA, OPTIONAL_STRING_SCHEMA)))
        return struct_schema_like(schema, fields)


class InsertFieldKey(KeySide, InsertField):
    """InsertField$Key: insert into the record key."""


class InsertFieldValue(ValueSide, InsertField):
    """InsertField$Value: insert into the record value."""
