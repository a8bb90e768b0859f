"""Which columns a record gives its table, and their values: ``pk.mode``, ``pk.fields`` and
``fields.whitelist`` as Confluent's JDBC sink reads them (its ``FieldsMetadata``).

A layout is worked out once per pair of key and value schemas; taking a record's values is then a walk
over precomputed positions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from conveyor.connectors.postgres.sink_config import KAFKA_PK_DEFAULTS, JdbcSinkSettings, PkMode
from conveyor.data import INT32_SCHEMA, INT64_SCHEMA, STRING_SCHEMA, Schema, SinkRecord, Struct, Type
from conveyor.errors import ConnectError

Values = Callable[[SinkRecord], list[Any]]
Positions = tuple[tuple[int, Any], ...]
"""Where columns' values sit in a struct, and the default each takes in place of a null."""


class RecordShapeError(ConnectError):
    """A record whose key or value cannot give the columns the connector's settings ask for."""


@dataclass(frozen=True)
class Column:
    """A column a record writes: its name, the schema of its values, whether it is part of the key."""

    name: str
    schema: Schema
    is_key: bool


@dataclass(frozen=True)
class RecordLayout:
    """The columns of records of one key and value schema (key columns first) and how to take them."""

    columns: tuple[Column, ...]
    key_values: Values = field(compare=False)
    other_values: Values = field(compare=False)
    value_positions: Positions | None = field(default=None, compare=False)
    """Each column's place in the value struct, when every column comes from the value."""

    @property
    def key_names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns if column.is_key)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def row(self, record: SinkRecord) -> list[Any]:
        """The record's values in column order."""
        return self.key_values(record) + self.other_values(record)


class Layouts:
    """The layouts of one connector's records, built once per (key schema, value schema)."""

    def __init__(self, settings: JdbcSinkSettings) -> None:
        self._settings = settings
        self._cache: dict[tuple[Schema | None, Schema | None, bool], RecordLayout] = {}
        self._last: tuple[Schema | None, Schema | None, bool, RecordLayout] | None = None

    def of(self, record: SinkRecord) -> RecordLayout:
        """The layout of ``record``; a tombstone's has the key columns only.

        Records of a batch share their schema objects, so the last one's layout is checked first, by
        identity, before a lookup that compares schemas field by field."""
        tombstone = record.value is None
        last = self._last
        if (
            last is not None
            and last[0] is record.key_schema
            and last[1] is record.value_schema
            and last[2] is tombstone
        ):
            return last[3]
        cache_key = (record.key_schema, None if tombstone else record.value_schema, tombstone)
        layout = self._cache.get(cache_key)
        if layout is None:
            layout = self._cache[cache_key] = self._build(record, tombstone)
        self._last = (record.key_schema, record.value_schema, tombstone, layout)
        return layout

    def _build(self, record: SinkRecord, tombstone: bool) -> RecordLayout:
        settings = self._settings
        value_schema = None if tombstone else _struct_schema(record, settings)
        mode = settings.pk_mode
        key_columns: list[Column]
        key_values: Values
        key_positions: Positions | None = None
        value_key_names: set[str] = set()
        if mode is PkMode.NONE:
            key_columns, key_values, key_positions = [], _nothing, ()
        elif mode is PkMode.KAFKA:
            names = settings.pk_fields or KAFKA_PK_DEFAULTS
            schemas = (STRING_SCHEMA, INT32_SCHEMA, INT64_SCHEMA)
            key_columns = [Column(n, s, True) for n, s in zip(names, schemas, strict=True)]
            key_values = _kafka_coordinates
        elif mode is PkMode.RECORD_KEY:
            key_columns, key_values, _ = _record_key_columns(record, settings.pk_fields)
        else:
            if value_schema is None:
                raise RecordShapeError(
                    f"pk.mode=record_value needs a value, but the record at {where(record)} is a tombstone"
                )
            chosen = settings.pk_fields or tuple(f.name for f in value_schema.fields)
            key_columns, key_values, key_positions = _struct_columns(
                value_schema, chosen, True, "value", _value_of
            )
            value_key_names = set(chosen)
        if value_schema is None:
            return RecordLayout(tuple(key_columns), key_values, _nothing)
        taken = {column.name for column in key_columns} | value_key_names
        whitelist = settings.fields_whitelist
        others = tuple(
            f.name
            for f in value_schema.fields
            if f.name not in taken and (not whitelist or f.name in whitelist)
        )
        other_columns, other_values, other_positions = _struct_columns(
            value_schema, others, False, "value", _value_of
        )
        positions = None if key_positions is None else key_positions + other_positions
        return RecordLayout(tuple(key_columns + other_columns), key_values, other_values, positions)


def where(record: SinkRecord) -> str:
    """``topic-partition@offset`` of a record as it was consumed, for messages."""
    return f"{record.original_topic}-{record.original_kafka_partition}@{record.original_kafka_offset}"


def _struct_schema(record: SinkRecord, settings: JdbcSinkSettings) -> Schema:
    schema = record.value_schema
    if schema is None or schema.type is not Type.STRUCT or not isinstance(record.value, Struct):
        shape = "no" if schema is None else f"a {schema.type.value}"
        raise RecordShapeError(
            f"The JDBC sink with pk.mode={settings.pk_mode} and "
            f"delete.enabled={str(settings.delete_enabled).lower()} needs records with a struct value "
            f"and a struct schema, but the record at {where(record)} has {shape} value schema: "
            "use a converter with schemas (JsonConverter with "
            "value.converter.schemas.enable=true, or Avro), or ExtractNewRecordState for Debezium envelopes"
        )
    return schema


def _record_key_columns(
    record: SinkRecord, pk_fields: Sequence[str]
) -> tuple[list[Column], Values, Positions | None]:
    schema = record.key_schema
    if schema is None or record.key is None:
        raise RecordShapeError(
            f"pk.mode=record_key needs records with a key and a key schema, but the record at "
            f"{where(record)} has none"
        )
    if schema.type is Type.STRUCT:
        chosen = tuple(pk_fields) or tuple(f.name for f in schema.fields)
        return _struct_columns(schema, chosen, True, "key", _key_of)
    if len(pk_fields) != 1:
        raise RecordShapeError(
            "Need exactly one PK column defined since the key schema for records is a primitive type, "
            f"defined columns are: [{', '.join(pk_fields)}]: set pk.fields to the column name of the key"
        )
    return [Column(pk_fields[0], schema, True)], _primitive_key, None


def _struct_columns(
    schema: Schema, names: Sequence[str], is_key: bool, side: str, struct_of: Callable[[SinkRecord], Any]
) -> tuple[list[Column], Values, Positions]:
    fields = []
    for name in names:
        found = schema.field(name)
        if found is None:
            raise RecordShapeError(
                f"PK field {name!r} (pk.fields) is not a field of the record {side}; its fields are "
                f"{', '.join(f.name for f in schema.fields)}"
            )
        fields.append(found)
    positions = tuple((f.index, f.schema.default) for f in fields)

    def values(record: SinkRecord) -> list[Any]:
        raw = struct_of(record).raw_values()
        return [default if (value := raw[index]) is None else value for index, default in positions]

    return [Column(f.name, f.schema, is_key) for f in fields], values, positions


def _value_of(record: SinkRecord) -> Any:
    return record.value


def _key_of(record: SinkRecord) -> Any:
    return record.key


def _nothing(record: SinkRecord) -> list[Any]:
    return []


def _kafka_coordinates(record: SinkRecord) -> list[Any]:
    return [record.original_topic, record.original_kafka_partition, record.original_kafka_offset]


def _primitive_key(record: SinkRecord) -> list[Any]:
    return [record.key]
