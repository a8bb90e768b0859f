"""Cutting a decoded batch down to the records a consumer still has to read."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from conveyor.log.api import RecordBatch
from conveyor.log.embedded.codec import DecodedBatch
from conveyor.positions import TopicPartition


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
