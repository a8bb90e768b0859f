"""Offset ranges: one Spark input partition per topic-partition range ``[start, end)``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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


def plan_ranges(start: Mapping[TopicPartition, int], end: Mapping[TopicPartition, int]) -> list[OffsetRange]:
    """The non-empty ranges from ``start`` to ``end``, in topic-partition order (so a replayed batch is
    planned the same way); partitions ``start`` does not know begin at offset 0."""
    return [
        OffsetRange(tp.topic, tp.partition, start.get(tp, 0), end[tp])
        for tp in sorted(end)
        if end[tp] > start.get(tp, 0)
    ]
