"""Connect records: what source tasks produce (``SourceRecord``) and sink tasks receive (``SinkRecord``)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, Final, Literal, Self

from conveyor.data.headers import Header, Headers
from conveyor.data.schema import Schema


class _Unchanged(enum.Enum):
    KEEP = enum.auto()


_KEEP: Final = _Unchanged.KEEP
_Keep = Literal[_Unchanged.KEEP]


class TimestampType(enum.StrEnum):
    """How a sink record's timestamp was set, with Kafka's names (compares equal to those strings)."""

    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


def _as_headers(headers: Headers | Iterable[Header] | None) -> Headers:
    if headers is None:
        return Headers()
    if isinstance(headers, Headers):
        return headers
    return Headers(headers)


_HEADERS_OR_NONE = attrgetter("_headers")

_SLOT_NAMES: dict[type, tuple[str, ...]] = {}
"""Every slot of each record class, base classes first: computed once per class, used by every copy."""


class ConnectRecord:
    """A key and value with their schemas, bound for or read from a topic partition.

    Only the topic is positional; every other field is a keyword with Kafka's name in snake case, so
    that a call reads the same whichever fields it sets. The topic partition is ``kafka_partition``
    (Kafka's ``kafkaPartition()``), not ``partition``: it is the attribute every reader uses, it
    matches ``kafka_offset`` and ``original_kafka_partition``, and beside a source record's
    ``source_partition`` a bare ``partition`` would not say which of the two it is.
    """

    __slots__ = (
        "_headers",
        "kafka_partition",
        "key",
        "key_schema",
        "timestamp",
        "topic",
        "value",
        "value_schema",
    )

    def __init__(
        self,
        topic: str,
        *,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        timestamp: int | None = None,
        headers: Headers | Iterable[Header] | None = None,
    ) -> None:
        self._set_fields(topic, kafka_partition, key_schema, key, value_schema, value, timestamp, headers)

    def _set_fields(
        self,
        topic: str,
        kafka_partition: int | None,
        key_schema: Schema | None,
        key: Any,
        value_schema: Schema | None,
        value: Any,
        timestamp: int | None,
        headers: Headers | Iterable[Header] | None,
    ) -> None:
        """The common fields, passed by position: sources build records by the million, and passing
        them to the base class by keyword made each construction about a fifth slower."""
        self.topic = topic
        self.kafka_partition = kafka_partition
        self.key_schema = key_schema
        self.key = key
        self.value_schema = value_schema
        self.value = value
        self.timestamp = timestamp
        self._headers = None if headers is None else _as_headers(headers)

    @property
    def headers(self) -> Headers:
        """The record's headers; created on first use, so that records without headers cost nothing."""
        if self._headers is None:
            self._headers = Headers()
        return self._headers

    @headers.setter
    def headers(self, headers: Headers | Iterable[Header] | None) -> None:
        self._headers = _as_headers(headers)

    @property
    def has_headers(self) -> bool:
        return bool(self._headers)

    @staticmethod
    def any_has_headers(records: Iterable[ConnectRecord]) -> bool:
        """Whether any of ``records`` has a header; read in C over the batch, not a property per record."""
        return any(map(_HEADERS_OR_NONE, records))

    @classmethod
    def _slot_names(cls) -> tuple[str, ...]:
        names = _SLOT_NAMES.get(cls)
        if names is None:
            names = tuple(name for klass in reversed(cls.__mro__) for name in getattr(klass, "__slots__", ()))
            _SLOT_NAMES[cls] = names
        return names

    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return tuple(name.lstrip("_") for name in cls._slot_names())

    def __copy__(self) -> Self:
        clone = object.__new__(type(self))
        for name in self._slot_names():
            object.__setattr__(clone, name, getattr(self, name))
        return clone

    def new_record(
        self,
        *,
        topic: str | _Keep = _KEEP,
        kafka_partition: int | _Keep | None = _KEEP,
        key_schema: Schema | _Keep | None = _KEEP,
        key: Any = _KEEP,
        value_schema: Schema | _Keep | None = _KEEP,
        value: Any = _KEEP,
        timestamp: int | _Keep | None = _KEEP,
        headers: Headers | Iterable[Header] | _Keep | None = _KEEP,
    ) -> Self:
        """A copy of this record, of the same class, with the given fields replaced.

        Fields a subclass adds (source offsets, the sink offset and its originals) are carried over; the
        headers are copied so that changing the new record's headers leaves this record's alone.
        """
        clone = self.__copy__()
        if topic is not _KEEP:
            clone.topic = topic
        if kafka_partition is not _KEEP:
            clone.kafka_partition = kafka_partition
        if key_schema is not _KEEP:
            clone.key_schema = key_schema
        if key is not _KEEP:
            clone.key = key
        if value_schema is not _KEEP:
            clone.value_schema = value_schema
        if value is not _KEEP:
            clone.value = value
        if timestamp is not _KEEP:
            clone.timestamp = timestamp
        if headers is not _KEEP:
            clone.headers = _as_headers(headers)
        elif self._headers is not None:
            clone.headers = self._headers.copy()
        return clone

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._field_names())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._field_names())
        return f"{type(self).__name__}{{{body}}}"


class SourceRecord(ConnectRecord):
    """A record produced by a source task, with the source partition and offset it came from.

    ``SourceRecord(topic, source_partition=..., source_offset=..., value_schema=..., value=...)``.
    A record without a source partition or offset (both None) is delivered, and no offset is
    committed for it. ``kafka_partition`` None lets the log's partitioner choose from the key.
    """

    __slots__ = ("source_offset", "source_partition")

    def __init__(
        self,
        topic: str,
        *,
        source_partition: Mapping[str, Any] | None = None,
        source_offset: Mapping[str, Any] | None = None,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        timestamp: int | None = None,
        headers: Headers | Iterable[Header] | None = None,
    ) -> None:
        self._set_fields(topic, kafka_partition, key_schema, key, value_schema, value, timestamp, headers)
        self.source_partition = source_partition
        self.source_offset = source_offset

    @classmethod
    def for_values(
        cls,
        topic: str,
        values: Sequence[Any],
        source_offsets: Sequence[Mapping[str, Any] | None],
        *,
        source_partition: Mapping[str, Any] | None = None,
        value_schema: Schema | None = None,
        timestamp: int | None = None,
        key_schema: Schema | None = None,
        keys: Sequence[Any] | None = None,
    ) -> list[Self]:
        """One record per value and its source offset (and its key, when ``keys`` are given), alike in
        every other field (no headers).

        The same records as ``SourceRecord(topic, source_partition=..., source_offset=offset,
        key_schema=..., key=key, value_schema=..., value=value, timestamp=...)`` for each value, built
        without a call with keywords per record: a source reading lines or rows builds them by the
        thousand. A subclass with an ``__init__`` of its own gets its records from that ``__init__``.
        """
        if len(values) != len(source_offsets):
            raise ValueError(f"{len(values)} values but {len(source_offsets)} source offsets")
        if keys is not None and len(keys) != len(values):
            raise ValueError(f"{len(values)} values but {len(keys)} keys")
        each_key: Sequence[Any] = keys if keys is not None else [None] * len(values)
        if cls.__init__ is not SourceRecord.__init__:
            return [
                cls(
                    topic,
                    source_partition=source_partition,
                    source_offset=offset,
                    key_schema=key_schema,
                    key=key,
                    value_schema=value_schema,
                    value=value,
                    timestamp=timestamp,
                )
                for value, offset, key in zip(values, source_offsets, each_key, strict=True)
            ]
        records: list[Self] = []
        append = records.append
        new = object.__new__
        for value, offset, key in zip(values, source_offsets, each_key, strict=True):
            record = new(cls)
            record.topic = topic
            record.kafka_partition = None
            record.key_schema = key_schema
            record.key = key
            record.value_schema = value_schema
            record.value = value
            record.timestamp = timestamp
            record._headers = None
            record.source_partition = source_partition
            record.source_offset = offset
            append(record)
        return records


class SinkRecord(ConnectRecord):
    """A record delivered to a sink task, with its offset in the log and, per KIP-793, where it was
    originally read from before any transform renamed its topic or partition."""

    __slots__ = (
        "kafka_offset",
        "original_kafka_offset",
        "original_kafka_partition",
        "original_topic",
        "timestamp_type",
    )

    def __init__(
        self,
        topic: str,
        *,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        kafka_offset: int = 0,
        timestamp: int | None = None,
        timestamp_type: str = TimestampType.NO_TIMESTAMP_TYPE,
        headers: Headers | Iterable[Header] | None = None,
        original_topic: str | None = None,
        original_kafka_partition: int | None = None,
        original_kafka_offset: int | None = None,
    ) -> None:
        self._set_fields(topic, kafka_partition, key_schema, key, value_schema, value, timestamp, headers)
        self.kafka_offset = kafka_offset
        self.timestamp_type = TimestampType(timestamp_type)
        self.original_topic = topic if original_topic is None else original_topic
        self.original_kafka_partition = (
            kafka_partition if original_kafka_partition is None else original_kafka_partition
        )
        self.original_kafka_offset = kafka_offset if original_kafka_offset is None else original_kafka_offset

    @classmethod
    def from_columns(
        cls,
        topic: str,
        kafka_partition: int,
        offsets: Sequence[int],
        key_schemas: Sequence[Schema | None],
        keys: Sequence[Any],
        value_schemas: Sequence[Schema | None],
        values: Sequence[Any],
        timestamps: Sequence[int | None],
        timestamp_type: TimestampType,
    ) -> list[SinkRecord]:
        """One record per row of these columns, read from ``topic`` partition ``kafka_partition``, without
        headers: what ``SinkRecord(topic, kafka_partition=..., ...)`` gives for each, built without
        keyword handling or a timestamp type lookup per record, as sink tasks receive them by the million.
        """
        count = len(offsets)
        columns = (key_schemas, keys, value_schemas, values, timestamps)
        if any(len(column) != count for column in columns):
            raise ValueError(f"Columns of different lengths for {count} offsets: {list(map(len, columns))}")
        return list(
            map(
                _sink_record,
                repeat(topic, count),
                repeat(kafka_partition, count),
                offsets,
                *columns,
                repeat(timestamp_type, count),
            )
        )


def _sink_record(
    topic: str,
    kafka_partition: int,
    offset: int,
    key_schema: Schema | None,
    key: Any,
    value_schema: Schema | None,
    value: Any,
    timestamp: int | None,
    timestamp_type: TimestampType,
    new: Any = object.__new__,
    cls: type[SinkRecord] = SinkRecord,
) -> SinkRecord:
    """A record with every slot set as ``SinkRecord.__init__`` sets it, from positional arguments only."""
    record: SinkRecord = new(cls)
    record.topic = topic
    record.kafka_partition = kafka_partition
    record.key_schema = key_schema
    record.key = key
    record.value_schema = value_schema
    record.value = value
    record.timestamp = timestamp
    record._headers = None
    record.kafka_offset = offset
    record.timestamp_type = timestamp_type
    record.original_topic = topic
    record.original_kafka_partition = kafka_partition
    record.original_kafka_offset = offset
    return record
