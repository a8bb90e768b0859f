"""Cutting a decoded batch down to the records a consumer still has to read."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import TypeVar

from conveyor.log.api import RecordBatch
from conveyor.log.columns import BinaryColumn
from conveyor.log.embedded.codec import DecodedBatch
from conveyor.positions import TopicPartition

T = TypeVar("T")


@dataclass(slots=True)
class PositionedBatch:
    """A decoded batch with the offsets it covers."""

    base_offset: int
    last_offset: int
    decoded: DecodedBatch

    def offsets(self) -> Sequence[int]:
        deltas = self.decoded.offset_deltas
        if deltas is None:
            return range(self.base_offset, self.base_offset + len(self.decoded))
        base = self.base_offset
        return [base + delta for delta in deltas]

    def slice_from(self, partition: TopicPartition, position: int, max_records: int) -> RecordBatch:
        """At most ``max_records`` records at or after ``position``; ``next_offset`` says where to go on."""
        offsets = self.offsets()
        count = len(offsets)
        start = position - self.base_offset if isinstance(offsets, range) else bisect_left(offsets, position)
        start = max(start, 0)
        stop = min(count, start + max_records)
        next_offset = self.last_offset + 1 if stop == count else offsets[stop]
        decoded = self.decoded
        if start == 0 and stop == count:
            return RecordBatch(
                partition.topic,
                partition.partition,
                offsets,
                decoded.keys,
                decoded.values,
                decoded.headers,
                decoded.timestamps,
                next_offset,
            )
        return RecordBatch(
            partition.topic,
            partition.partition,
            offsets[start:stop],
            decoded.keys[start:stop],
            decoded.values[start:stop],
            decoded.headers[start:stop],
            decoded.timestamps[start:stop],
            next_offset,
        )


def joined(batches: Sequence[RecordBatch]) -> RecordBatch:
    """Consecutive batches of one partition as one, as a poll of a partition is handed over whole: a
    stored batch's bounds are the producer's, not the reader's."""
    if len(batches) == 1:
        return batches[0]
    first, last = batches[0], batches[-1]
    return RecordBatch(
        first.topic,
        first.partition,
        _joined_offsets([batch.offsets for batch in batches]),
        _joined_binary([batch.keys for batch in batches]),
        _joined_binary([batch.values for batch in batches]),
        _joined_list([batch.headers for batch in batches]),
        _joined_list([batch.timestamps for batch in batches]),
        last.next_offset,
    )


def _joined_offsets(parts: Sequence[Sequence[int]]) -> Sequence[int]:
    """A range when the parts are ranges one after the other (dense offsets), else a list."""
    if all(isinstance(part, range) and part.step == 1 for part in parts) and all(
        before.stop == after.start  # type: ignore[attr-defined]
        for before, after in pairwise(parts)
    ):
        return range(parts[0].start, parts[-1].stop)  # type: ignore[attr-defined]
    return _joined_list(parts)


def _joined_binary(parts: Sequence[Sequence[bytes | None]]) -> Sequence[bytes | None]:
    """Binary columns stay one buffer; any other column becomes a list."""
    if all(isinstance(part, BinaryColumn) for part in parts):
        return BinaryColumn.concatenated(parts)  # type: ignore[arg-type]
    return _joined_list(parts)


def _joined_list(parts: Sequence[Sequence[T]]) -> list[T]:
    return list(chain.from_iterable(parts))
