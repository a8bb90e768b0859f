"""The source design's offset syncs. A source task is not told where its records landed, so after each
commit the task reads back the last record of each remote partition it wrote to: this task is the
partition's only writer, and everything it returned is committed by then, so that record is the last one
it replicated. Syncs go to ``mm2-offset-syncs.<target>.internal`` on the target, outside the transaction
(as Kafka's MirrorSourceTask writes them after the fact)."""

from __future__ import annotations

from conveyor.connectors.mirror.config import MirrorSettings
from conveyor.connectors.mirror.offset_syncs import OFFSET_SYNCS_TOPIC_CONFIG, OffsetSync, OffsetSyncEmitter
from conveyor.log import Consumer, Log, Producer, TopicPartition

READ_BACK = 4
"""How far before the end of a remote partition to read for its last record (past transaction markers)."""


class DownstreamOffsetSyncs:
    """Remembers the last upstream offset returned per partition; on ``committed`` writes the due syncs."""

    def __init__(self, target: Log, settings: MirrorSettings) -> None:
        self._settings = settings
        topic = settings.policy.offset_syncs_topic(settings.target_alias)
        target.admin().create_topic(topic, 1, OFFSET_SYNCS_TOPIC_CONFIG, exist_ok=True)
        self._emitter = OffsetSyncEmitter(topic, settings.offset_lag_max)
        self._producer: Producer = target.producer()
        self._reader: Consumer = target.consumer(None, "read_committed")
        self._returned: dict[TopicPartition, int] = {}

    def returned(self, partition: TopicPartition, upstream_offset: int) -> None:
        """The task returned the record at ``upstream_offset`` of ``partition`` for replication."""
        self._returned[partition] = upstream_offset

    def committed(self) -> None:
        """Everything returned so far is in the target: write the syncs that are due."""
        for partition, upstream in self._returned.items():
            if not self._emitter.may_be_due(partition, upstream):
                continue
            remote = TopicPartition(self._settings.remote_topic(partition.topic), partition.partition)
            downstream = self._last_offset(remote)
            if downstream is not None:
                self._emitter.send(self._producer, OffsetSync(partition, upstream, downstream))
        self._returned.clear()
        self._producer.flush()

    def _last_offset(self, remote: TopicPartition) -> int | None:
        end = self._reader.end_offsets([remote])[remote]
        if end == 0:
            return None
        self._reader.assign([remote])
        self._reader.seek(remote, max(0, end - READ_BACK))
        last: int | None = None
        while records := self._reader.poll(timeout=0.0, max_records=READ_BACK * 2):
            last = records[-1].offset
        return last

    def close(self) -> None:
        self._reader.close()
        self._producer.close()
