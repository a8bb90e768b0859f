"""Consumed records as converted columns: what the `SinkRecord`s of a batch would hold, one list per field."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conveyor.data.headers import Headers
from conveyor.data.records import SinkRecord, TimestampType
from conveyor.data.schema import Schema


@dataclass(frozen=True, slots=True)
class SinkColumns:
    """Consecutive records of one topic partition, converted: row ``i`` of every column is record ``i``.

    ``headers`` is None when no record has any (else one entry per record, None for a record without);
    ``next_offset`` is the position after the batch.
    """

    topic: str
    partition: int
    offsets: Sequence[int]
    key_schemas: Sequence[Schema | None]
    keys: Sequence[Any]
    value_schemas: Sequence[Schema | None]
    values: Sequence[Any]
    timestamps: Sequence[int | None]
    next_offset: int
    headers: Sequence[Headers | None] | None = None
    timestamp_type: TimestampType = TimestampType.CREATE_TIME

    def __len__(self) -> int:
        return len(self.offsets)

    def records(self) -> list[SinkRecord]:
        """The same records as ``SinkRecord``s, one per row; each call gives new records, with headers of
        their own."""
        records = SinkRecord.from_columns(
            self.topic,
            self.partition,
            self.offsets,
            self.key_schemas,
            self.keys,
            self.value_schemas,
            self.values,
            self.timestamps,
            self.timestamp_type,
        )
        if self.headers is not None:
            for record, headers in zip(records, self.headers, strict=True):
                if headers is not None:
                    record.headers = headers.copy()
        return records
