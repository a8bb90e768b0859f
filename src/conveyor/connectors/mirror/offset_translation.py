"""Translating a consumer group's upstream offsets to downstream ones through the offset syncs (Kafka's
``OffsetSyncStore``): never past a record the group has not consumed."""

from __future__ import annotations

import bisect

from conveyor.connectors.mirror.offset_syncs import OffsetSync
from conveyor.log import Consumer, Log, TopicPartition


class OffsetSyncStore:
    """The offset syncs read so far from the syncs topic, kept sorted by upstream offset per partition."""

    def __init__(self, log: Log, topic: str) -> None:
        self._consumer: Consumer = log.consumer(None, "read_committed", **{"auto.offset.reset": "earliest"})
        self._consumer.assign([TopicPartition(topic, 0)])
        self._upstream: dict[TopicPartition, list[int]] = {}
        self._syncs: dict[TopicPartition, list[OffsetSync]] = {}

    def read_to_end(self) -> None:
        while records := self._consumer.poll(timeout=0.0, max_records=10_000):
            for record in records:
                if record.key is not None and record.value is not None:
                    self._add(OffsetSync.decode(record.key, record.value))

    def _add(self, sync: OffsetSync) -> None:
        upstream = self._upstream.setdefault(sync.partition, [])
        syncs = self._syncs.setdefault(sync.partition, [])
        index = bisect.bisect_right(upstream, sync.upstream_offset)
        if index and upstream[index - 1] == sync.upstream_offset:
            syncs[index - 1] = sync
            return
        upstream.insert(index, sync.upstream_offset)
        syncs.insert(index, sync)

    def translate(self, partition: TopicPartition, upstream_offset: int) -> int | None:
        """The downstream offset to resume from after consuming upstream up to ``upstream_offset``
        (exclusive): the latest sync at or before it, plus one record if the group is past that record.
        None when no sync is old enough."""
        upstream = self._upstream.get(partition)
        if not upstream:
            return None
        index = bisect.bisect_right(upstream, upstream_offset)
        if index == 0:
            return None
        sync = self._syncs[partition][index - 1]
        return sync.downstream_offset + (1 if upstream_offset > sync.upstream_offset else 0)

    def close(self) -> None:
        self._consumer.close()
