"""Offset syncs: pairs of an upstream offset and the downstream offset its record got, in Kafka's
``OffsetSync`` wire format, so that consumer group offsets can be translated between clusters."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from conveyor.log import Producer, TopicPartition

_OFFSETS = struct.Struct(">qq")
_PARTITION = struct.Struct(">i")
_LENGTH = struct.Struct(">h")
OFFSET_SYNCS_TOPIC_CONFIG = {"cleanup.policy": "compact"}


@dataclass(frozen=True)
class OffsetSync:
    """The record at ``upstream_offset`` of the source partition is at ``downstream_offset`` downstream."""

    partition: TopicPartition
    upstream_offset: int
    downstream_offset: int

    def key(self) -> bytes:
        topic = self.partition.topic.encode()
        return _LENGTH.pack(len(topic)) + topic + _PARTITION.pack(self.partition.partition)

    def value(self) -> bytes:
        return _OFFSETS.pack(self.upstream_offset, self.downstream_offset)

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> OffsetSync:
        (length,) = _LENGTH.unpack_from(key)
        topic = key[2 : 2 + length].decode()
        (partition,) = _PARTITION.unpack_from(key, 2 + length)
        upstream, downstream = _OFFSETS.unpack(value)
        return cls(TopicPartition(topic, partition), upstream, downstream)


class OffsetSyncEmitter:
    """Decides when a new sync is worth writing, as Kafka's ``maybeSyncOffsets``: when the upstream
    offset moved more than ``offset.lag.max`` since the last one, or the two offsets stopped
    moving together."""

    def __init__(self, topic: str, offset_lag_max: int) -> None:
        self.topic = topic
        self.offset_lag_max = offset_lag_max
        self._last: dict[TopicPartition, OffsetSync] = {}

    def due(self, sync: OffsetSync) -> bool:
        last = self._last.get(sync.partition)
        return (
            last is None
            or sync.upstream_offset - last.upstream_offset > self.offset_lag_max
            or sync.upstream_offset - last.upstream_offset != sync.downstream_offset - last.downstream_offset
        )

    def may_be_due(self, partition: TopicPartition, upstream_offset: int) -> bool:
        """Whether a sync for ``upstream_offset`` is due on the upstream side alone (no sync yet, or the
        upstream offset moved more than ``offset.lag.max``), before its downstream offset is known."""
        last = self._last.get(partition)
        return last is None or upstream_offset - last.upstream_offset > self.offset_lag_max

    def send(self, producer: Producer, sync: OffsetSync) -> None:
        """Send ``sync`` if it is due; it counts as written once the producer's transaction commits."""
        if self.due(sync):
            producer.send(self.topic, sync.value(), key=sync.key(), partition=0)
            self._last[sync.partition] = sync

    def forget(self) -> None:
        """After an aborted transaction the syncs it held are gone: write the next ones afresh."""
        self._last.clear()
