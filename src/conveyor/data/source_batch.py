"""``SourceRecordBatch``: a poll's records held as columns, for sources that produce them by the thousand."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from conveyor.data.records import SourceRecord
from conveyor.data.schema import Schema


class SourceRecordBatch(Sequence[SourceRecord]):
    """Records alike in all but their value, key and source offset, held as columns.

    A batch is the sequence of the ``SourceRecord``\\ s it stands for, so ``poll`` may return it where it
    returns a list: the records are built on first indexing or iteration, then kept (a record handed to
    the transaction context is the very one the runtime iterates). With no transformation configured,
    the runtime converts the columns with one converter call each, sends them, and keeps the batch's
    ``source_offset`` (its last record's) for the source partition, building no record object, unless
    something needs the records: the task's own ``commit_record``, a transaction request naming a
    record, or the task having built them itself (then they go as any records do).

    Example::

        SourceRecordBatch(
            "lines",
            ["first line", "second line"],
            [{"position": 11}, {"position": 23}],
            source_partition={"file": "in.txt"},
            value_schema=STRING_SCHEMA,
        )

    stands for ``SourceRecord("lines", source_partition={"file": "in.txt"}, source_offset={"position":
    11}, value_schema=STRING_SCHEMA, value="first line")`` and the same for the second line; when the
    runtime takes its fast path it commits ``{"position": 23}``. ``keys`` None gives every record a null
    key; ``kafka_partition`` None lets the log's partitioner choose; no record has headers.
    ``source_offsets`` may be any sequence, one computing its items when asked included.
    """

    __slots__ = (
        "_records",
        "kafka_partition",
        "key_schema",
        "keys",
        "source_offsets",
        "source_partition",
        "timestamp",
        "topic",
        "value_schema",
        "values",
    )

    def __init__(
        self,
        topic: str,
        values: Sequence[Any],
        source_offsets: Sequence[Mapping[str, Any] | None],
        *,
        source_partition: Mapping[str, Any] | None = None,
        kafka_partition: int | None = None,
        value_schema: Schema | None = None,
        key_schema: Schema | None = None,
        keys: Sequence[Any] | None = None,
        timestamp: int | None = None,
    ) -> None:
        if len(values) != len(source_offsets):
            raise ValueError(f"{len(values)} values but {len(source_offsets)} source offsets")
        if keys is not None and len(keys) != len(values):
            raise ValueError(f"{len(values)} values but {len(keys)} keys")
        self.topic = topic
        self.values = values
        self.source_offsets = source_offsets
        self.source_partition = source_partition
        self.kafka_partition = kafka_partition
        self.value_schema = value_schema
        self.key_schema = key_schema
        self.keys = keys
        self.timestamp = timestamp
        self._records: list[SourceRecord] | None = None

    @property
    def source_offset(self) -> Mapping[str, Any] | None:
        """The last record's source offset: what committing the whole batch stores for its partition."""
        return self.source_offsets[-1] if self.values else None

    @property
    def records_built(self) -> bool:
        """Whether its records were built: from then on they, as the task may have changed them, are
        what the batch stands for, and the runtime sends them rather than the columns."""
        return self._records is not None

    def records(self) -> list[SourceRecord]:
        """The records the batch stands for; built once, the same objects on every call."""
        if self._records is None:
            records = SourceRecord.for_values(
                self.topic,
                self.values,
                self.source_offsets,
                source_partition=self.source_partition,
                value_schema=self.value_schema,
                timestamp=self.timestamp,
                key_schema=self.key_schema,
                keys=self.keys,
            )
            if self.kafka_partition is not None:
                for record in records:
                    record.kafka_partition = self.kafka_partition
            self._records = records
        return self._records

    def __len__(self) -> int:
        return len(self.values)

    @overload
    def __getitem__(self, index: int) -> SourceRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SourceRecord]: ...

    def __getitem__(self, index: int | slice) -> SourceRecord | list[SourceRecord]:
        return self.records()[index]

    def __iter__(self) -> Iterator[SourceRecord]:
        return iter(self.records())

    def __repr__(self) -> str:
        return (
            f"SourceRecordBatch{{topic={self.topic!r}, records={len(self)}, "
            f"source_partition={self.source_partition!r}, source_offset={self.source_offset!r}}}"
        )
