"""Debezium's change events for PostgreSQL: per-table key, value and envelope schemas, the ``source``
block, and the records of creates, updates, deletes, reads (snapshot) and truncates."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from conveyor import __version__
from conveyor.connectors.postgres.catalog import TableId
from conveyor.connectors.postgres.pgoutput import UNCHANGED_TOAST, TupleValue
from conveyor.connectors.postgres.types import (
    VARIABLE_SCALE_DECIMAL_SCHEMA,
    ColumnMapping,
    struct_schema,
)
from conveyor.convert import JsonConverter
from conveyor.convert.encoded_json import EncodedJson, default_converter, finish_json_bytes
from conveyor.data import Date, Decimal, Schema, SourceRecord, Struct, Time, Timestamp, Type
from conveyor.data.logical import decimal_from_unscaled

CONNECTOR_NAME: Final = "postgresql"
SOURCE_SCHEMA_NAME: Final = "io.debezium.connector.postgresql.Source"
UNAVAILABLE_VALUE: Final = "__debezium_unavailable_value"
"""What Debezium writes for a TOASTed value an update left unchanged (``pgoutput`` does not send it)."""
SOURCE_VERSION: Final = f"conveyor-{__version__}"

SNAPSHOT_VALUES: Final = (
    "true",
    "first",
    "first_in_data_collection",
    "last_in_data_collection",
    "last",
    "false",
)
"""What ``source.snapshot`` says: ``false`` when streaming, the others for a snapshot's first, middle,
per-table first/last and very last records."""


def _optional(schema_type: Type) -> Schema:
    return Schema(schema_type, optional=True)


SOURCE_SCHEMA: Final = struct_schema(
    SOURCE_SCHEMA_NAME,
    [
        ("version", Schema(Type.STRING)),
        ("connector", Schema(Type.STRING)),
        ("name", Schema(Type.STRING)),
        ("ts_ms", Schema(Type.INT64)),
        (
            "snapshot",
            Schema(
                Type.STRING,
                optional=True,
                default="false",
                name="io.debezium.data.Enum",
                version=1,
                parameters={"allowed": ",".join((*SNAPSHOT_VALUES, "incremental"))},
            ),
        ),
        ("db", Schema(Type.STRING)),
        ("sequence", _optional(Type.STRING)),
        ("ts_us", _optional(Type.INT64)),
        ("ts_ns", _optional(Type.INT64)),
        ("schema", Schema(Type.STRING)),
        ("table", Schema(Type.STRING)),
        ("txId", _optional(Type.INT64)),
        ("lsn", _optional(Type.INT64)),
        ("xmin", _optional(Type.INT64)),
        ("origin", _optional(Type.STRING)),
        ("origin_lsn", _optional(Type.INT64)),
    ],
    version=1,
)

TRANSACTION_BLOCK_SCHEMA: Final = struct_schema(
    "event.block",
    [
        ("id", Schema(Type.STRING)),
        ("total_order", Schema(Type.INT64)),
        ("data_collection_order", Schema(Type.INT64)),
    ],
    optional=True,
    version=1,
)

HEARTBEAT_KEY_SCHEMA: Final = struct_schema(
    "io.debezium.connector.common.ServerNameKey", [("serverName", Schema(Type.STRING))]
)
HEARTBEAT_VALUE_SCHEMA: Final = struct_schema(
    "io.debezium.connector.common.Heartbeat", [("ts_ms", Schema(Type.INT64))]
)


@dataclass(frozen=True)
class Position:
    """Where a change sits in the WAL and its transaction; what ``source`` and the offset record."""

    lsn: int
    commit_lsn: int
    event: int
    """The change's index in its transaction, from 1: LSNs alone do not order the changes of one WAL
    record (a multi-row insert gives them one LSN)."""
    xid: int
    commit_time_us: int
    snapshot: str = "false"
    previous_commit_end: int | None = None
    """Where the previous transaction's commit ended (Debezium's ``lsn_commit`` in ``source.sequence``)."""


def source_offset(
    position: Position, *, snapshot: bool = False, last_snapshot_record: bool = False
) -> dict[str, Any]:
    """Debezium's offset of a change at ``position``, plus ``event``, its index in the transaction."""
    if snapshot:
        return {
            "lsn": position.lsn,
            "txId": position.xid,
            "ts_usec": position.commit_time_us,
            "snapshot": True,
            "last_snapshot_record": last_snapshot_record,
        }
    return {
        "lsn_proc": position.lsn,
        "lsn_commit": position.commit_lsn,
        "lsn": position.lsn,
        "txId": position.xid,
        "ts_usec": position.commit_time_us,
        "event": position.event,
    }


@dataclass(frozen=True)
class Column:
    name: str
    mapping: ColumnMapping
    primary_key: bool


class TableEvents:
    """The schemas of one table's events (as its columns are now) and the records built with them."""

    def __init__(
        self,
        prefix: str,
        database: str,
        table: TableId,
        columns: Sequence[Column],
        positions: Sequence[int],
    ) -> None:
        self.table = table
        self.database = database
        self.prefix = prefix
        self.topic = f"{prefix}.{table.schema}.{table.table}"
        self.columns = tuple(columns)
        self.positions = tuple(positions)
        """Where each kept column sits in the tuples ``pgoutput`` sends (and in snapshot rows)."""
        base = f"{prefix}.{table.schema}.{table.table}"
        key_columns = [column for column in columns if column.primary_key]
        self.key_indexes = tuple(index for index, column in enumerate(columns) if column.primary_key)
        self.key_schema: Schema | None = (
            struct_schema(f"{base}.Key", [(column.name, column.mapping.schema) for column in key_columns])
            if key_columns
            else None
        )
        self.row_schema = struct_schema(
            f"{base}.Value", [(column.name, column.mapping.schema) for column in columns], optional=True
        )
        self.envelope_schema = struct_schema(
            f"{base}.Envelope",
            [
                ("before", self.row_schema),
                ("after", self.row_schema),
                ("source", SOURCE_SCHEMA),
                ("transaction", TRANSACTION_BLOCK_SCHEMA),
                ("op", Schema(Type.STRING)),
                ("ts_ms", _optional(Type.INT64)),
                ("ts_us", _optional(Type.INT64)),
                ("ts_ns", _optional(Type.INT64)),
            ],
            version=2,
        )
        self._fallbacks = [_fallback(column.mapping.schema) for column in columns]
        self._json: tuple[JsonConverter, bytes] | None = None

    def row(self, values: Sequence[TupleValue]) -> list[Any]:
        """The Connect values of the kept columns of a tuple; a required column the tuple lacks (an old
        key carries only the key's columns) gets its type's empty value, as in Debezium's events."""
        row: list[Any] = []
        for index, (column, position) in enumerate(zip(self.columns, self.positions, strict=True)):
            text = values[position] if position < len(values) else None
            if text is UNCHANGED_TOAST:
                row.append(_unavailable(column.mapping.schema, self._fallbacks[index]))
            elif text is None:
                row.append(None if column.mapping.schema.optional else self._fallbacks[index])
            else:
                assert isinstance(text, str)
                row.append(column.mapping.convert(text))
        return row

    def key(self, row: Sequence[Any]) -> Struct | None:
        if self.key_schema is None:
            return None
        return Struct.unchecked(self.key_schema, [row[index] for index in self.key_indexes])

    def record(
        self,
        op: str,
        before: list[Any] | None,
        after: list[Any] | None,
        position: Position,
        offset: Mapping[str, Any],
        partition: Mapping[str, Any],
    ) -> SourceRecord:
        """One change event: ``op`` is c, u, d or r."""
        source = self.source(position)
        envelope = Struct.unchecked(
            self.envelope_schema,
            [
                None if before is None else Struct.unchecked(self.row_schema, before),
                None if after is None else Struct.unchecked(self.row_schema, after),
                source,
                None,
                op,
                *_event_times(),
            ],
        )
        key_row = after if after is not None else before
        return SourceRecord(
            self.topic,
            source_partition=partition,
            source_offset=offset,
            key_schema=self.key_schema,
            key=None if key_row is None else self.key(key_row),
            value_schema=self.envelope_schema,
            value=envelope,
        )

    def read_records(
        self,
        rows: Sequence[list[Any]],
        markers: Sequence[str],
        position: Position,
        offsets: Sequence[Mapping[str, Any]],
        partition: Mapping[str, Any],
    ) -> list[SourceRecord]:
        """Snapshot reads (``op`` r) of rows at one position, ``source.snapshot`` from ``markers``: what
        rows share (the source block of a marker, the time) is built once for all of them."""
        times = _event_times()
        sources: dict[str, Struct] = {}
        for marker in set(markers):
            sources[marker] = self.source(replace(position, snapshot=marker))
        after = Struct.unchecked_many(self.row_schema, rows)
        envelopes = Struct.unchecked_many(
            self.envelope_schema,
            [
                [None, row, sources[marker], None, "r", *times]
                for row, marker in zip(after, markers, strict=True)
            ],
        )
        keys = None
        if self.key_schema is not None:
            indexes = self.key_indexes
            keys = Struct.unchecked_many(self.key_schema, [[row[i] for i in indexes] for row in rows])
        return self._snapshot_reads(envelopes, keys, offsets, partition)

    def encoded_read_records(
        self,
        rows: Sequence[Sequence[bytes]],
        markers: Sequence[str],
        position: Position,
        offsets: Sequence[Mapping[str, Any]],
        partition: Mapping[str, Any],
    ) -> list[SourceRecord]:
        """The records :meth:`read_records` gives, of rows whose last two fields are the JSON of their key
        and of their ``after`` payload as the JSON converter writes them (lower-case ``\\u00xx`` escapes
        aside): the records carry the converter's bytes (``EncodedJson``), its envelopes written around
        them."""
        assert self.key_schema is not None
        converter, key_head = self._json_writer()
        times = _event_times()
        parts: dict[str, tuple[bytes, bytes]] = {}
        for marker in set(markers):
            source = self.source(replace(position, snapshot=marker))
            envelope = Struct.unchecked(self.envelope_schema, [None, None, source, None, "r", *times])
            written = converter.from_connect_data(self.topic, self.envelope_schema, envelope)
            head = converter.envelope_head(self.envelope_schema) + _NO_AFTER
            assert written is not None and written.startswith(head)
            parts[marker] = (head[: -len(b"null")], written[len(head) :])
        afters = [row[-1] for row in rows]
        key_payloads = [row[-2] for row in rows]
        # A page without escapes (nearly every page) is spared a search of each row's payload and key; a
        # key is searched on its own, since its columns may be left out of the payload.
        if b"\\u00" in b"".join(afters) or b"\\u00" in b"".join(key_payloads):
            for n, (after, key) in enumerate(zip(afters, key_payloads, strict=True)):
                if b"\\u00" in after:
                    afters[n] = finish_json_bytes(after)
                if b"\\u00" in key:
                    key_payloads[n] = finish_json_bytes(key)
        if len(parts) == 1:
            head, tail = parts[markers[0]]
            values = [EncodedJson(head + after + tail) for after in afters]
        else:
            values = [
                EncodedJson(parts[marker][0] + after + parts[marker][1])
                for after, marker in zip(afters, markers, strict=True)
            ]
        keys = [EncodedJson(key_head + key + b"}") for key in key_payloads]
        return self._snapshot_reads(values, keys, offsets, partition)

    def _snapshot_reads(
        self,
        envelopes: Sequence[Any],
        keys: Sequence[Any] | None,
        offsets: Sequence[Mapping[str, Any]],
        partition: Mapping[str, Any],
    ) -> list[SourceRecord]:
        """The snapshot reads of these envelopes and keys, each at its offset, in one batch."""
        return SourceRecord.for_values(
            self.topic,
            envelopes,
            offsets,
            source_partition=partition,
            value_schema=self.envelope_schema,
            key_schema=self.key_schema,
            keys=keys,
        )

    def _json_writer(self) -> tuple[JsonConverter, bytes]:
        """A JSON converter with the defaults and the bytes it writes before a key's payload."""
        if self._json is None:
            converter = default_converter(False)
            self._json = (converter, converter.envelope_head(self.key_schema))
        return self._json

    def truncate(
        self, position: Position, offset: Mapping[str, Any], partition: Mapping[str, Any]
    ) -> SourceRecord:
        """A truncate event: no key, no before or after, ``op`` t."""
        record = self.record("t", None, None, position, offset, partition)
        record.key_schema = None
        record.key = None
        return record

    def tombstone(self, delete: SourceRecord) -> SourceRecord:
        """The tombstone that follows a delete: its key, a null value."""
        return SourceRecord(
            self.topic,
            source_partition=delete.source_partition,
            source_offset=delete.source_offset,
            key_schema=delete.key_schema,
            key=delete.key,
            value_schema=None,
            value=None,
        )

    def source(self, position: Position) -> Struct:
        return Struct.unchecked(
            SOURCE_SCHEMA,
            [
                SOURCE_VERSION,
                CONNECTOR_NAME,
                self.prefix,
                position.commit_time_us // 1000,
                position.snapshot,
                self.database,
                self._sequence(position),
                position.commit_time_us,
                position.commit_time_us * 1000,
                self.table.schema,
                self.table.table,
                position.xid,
                position.lsn,
                None,
                None,
                None,
            ],
        )

    @staticmethod
    def _sequence(position: Position) -> str:
        """Debezium's ``sequence``: the end of the previous commit (null before the first one seen) and
        the change's LSN, as strings."""
        previous = position.previous_commit_end if position.snapshot == "false" else position.commit_lsn
        first = "null" if previous is None else f'"{previous}"'
        return f'[{first},"{position.lsn}"]'


_NO_AFTER: Final = b'{"before":null,"after":null'


def _event_times() -> tuple[int, int, int]:
    """An envelope's ``ts_ms``, ``ts_us`` and ``ts_ns``: now, in the three precisions Debezium writes."""
    now_ns = time.time_ns()
    return now_ns // 1_000_000, now_ns // 1_000, now_ns


def _unavailable(schema: Schema, fallback: Any) -> Any:
    if schema.type is Type.STRING and schema.name is None:
        return UNAVAILABLE_VALUE
    if schema.type is Type.BYTES and schema.name is None:
        return UNAVAILABLE_VALUE.encode()
    return None if schema.optional else fallback


_LOGICAL_FALLBACKS: Final[dict[str, Callable[[Schema], Any]]] = {
    Decimal.LOGICAL_NAME: lambda schema: decimal_from_unscaled(0, Decimal.scale_of(schema)),
    Date.LOGICAL_NAME: lambda _schema: dt.date(1970, 1, 1),
    Time.LOGICAL_NAME: lambda _schema: dt.time(0),
    Timestamp.LOGICAL_NAME: lambda _schema: dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
}

_TYPE_FALLBACKS: Final[dict[Type, Any]] = {
    Type.INT8: 0,
    Type.INT16: 0,
    Type.INT32: 0,
    Type.INT64: 0,
    Type.FLOAT32: 0.0,
    Type.FLOAT64: 0.0,
    Type.BOOLEAN: False,
    Type.STRING: "",
    Type.BYTES: b"",
}


def _fallback(schema: Schema) -> Any:
    """The empty value Debezium puts in a required column whose value a change does not carry."""
    if schema.name in _LOGICAL_FALLBACKS:
        return _LOGICAL_FALLBACKS[schema.name](schema)
    if schema == VARIABLE_SCALE_DECIMAL_SCHEMA:
        return Struct.unchecked(schema, [0, b"\x00"])
    if schema.type is Type.ARRAY:
        return []
    return _TYPE_FALLBACKS.get(schema.type)
