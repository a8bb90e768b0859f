"""Offset ranges: one Spark input partition per topic-partition range ``[start, end)``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

from pyspark.sql.datasource import InputPartition

from conveyor.log import TopicPartition


@dataclass(frozen=True)
class OffsetRange(InputPartition):
    """The offsets ``[start, end)`` of one topic-partition: what one Spark task reads."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


def plan_ranges(
    start: Mapping[TopicPartition, int], end: Mapping[TopicPartition, int], min_partitions: int | None = None
) -> list[OffsetRange]:
    """The non-empty ranges from ``start`` to ``end``, in topic-partition order (so a replayed batch is
    planned the same way); partitions ``start`` does not know begin at offset 0.

    With ``min_partitions`` above the number of ranges, each range is cut into pieces of about equal
    size, as many as its share of all offsets gives (at least one), as Spark's Kafka source does."""
    ranges = [
        OffsetRange(tp.topic, tp.partition, start.get(tp, 0), end[tp])
        for tp in sorted(end)
        if end[tp] > start.get(tp, 0)
    ]
    if min_partitions is None or min_partitions <= len(ranges):
        return ranges
    total = sum(r.end - r.start for r in ranges)
    return [
        piece for r in ranges for piece in _cut(r, max(1, round((r.end - r.start) / total * min_partitions)))
    ]


def _cut(whole: OffsetRange, pieces: int) -> list[OffsetRange]:
    size = whole.end - whole.start
    bounds = [whole.start + size * i // pieces for i in range(pieces + 1)]
    return [
        OffsetRange(whole.topic, whole.partition, low, high) for low, high in pairwise(bounds) if high > low
    ]
