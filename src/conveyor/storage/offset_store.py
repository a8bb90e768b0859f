"""The offset store: source offsets kept in an offsets topic, partitioned and compacted by their key."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping

from conveyor.log.api import ConsumerRecord, IsolationLevel, Log, Producer
from conveyor.log.errors import LogError
from conveyor.storage import offset_records
from conveyor.storage.cached_topic import CachedTopic
from conveyor.storage.errors import StorageError
from conveyor.storage.offset_records import PartitionKey, SourceOffset, SourceOffsetValue, SourcePartition

logger = logging.getLogger(__name__)

DEFAULT_OFFSETS_TOPIC = "connect-offsets"
DEFAULT_OFFSETS_PARTITIONS = 25
OFFSETS_TOPIC_SETTINGS = {"cleanup.policy": "compact"}

OffsetUpdates = Iterable[tuple[SourcePartition, SourceOffsetValue | None]]


class OffsetStore(CachedTopic):
    """Source offsets of every connector writing to one offsets topic, read committed into a cache.

    Lookups answer from what was read so far; call ``read_to_end()`` for the latest. Writes go through a
    producer: an exactly-once task passes its own transactional producer so that offsets commit with its
    records; ``put`` uses the store's own plain producer.
    """

    store_name = "Offset store"

    def __init__(
        self,
        log: Log,
        topic: str = DEFAULT_OFFSETS_TOPIC,
        partitions: int = DEFAULT_OFFSETS_PARTITIONS,
        replication_factor: int = -1,
        isolation_level: IsolationLevel = "read_committed",
        consumer_config: Mapping[str, str] | None = None,
        create_missing: bool = True,
    ) -> None:
        super().__init__(
            log,
            topic,
            partitions,
            OFFSETS_TOPIC_SETTINGS,
            replication_factor,
            isolation_level,
            consumer_config,
            create_missing,
        )
        self._offsets: dict[str, dict[PartitionKey, SourceOffset]] = {}
        self._cache_lock = threading.Lock()

    def offsets(self, connector: str) -> dict[PartitionKey, SourceOffset]:
        """Every partition of ``connector`` with an offset, keyed by ``partition_key(partition)``."""
        with self._cache_lock:
            return dict(self._offsets.get(connector, {}))

    def get(self, connector: str, partition: SourcePartition) -> dict[str, object] | None:
        """The committed offset of one source partition, or None."""
        with self._cache_lock:
            found = self._offsets.get(connector, {}).get(offset_records.partition_key(partition))
        return None if found is None else dict(found.offset)

    def serialize(
        self, connector: str, partition: SourcePartition, offset: SourceOffsetValue | None
    ) -> tuple[bytes, bytes | None]:
        """The key and value bytes of one offset record (None value: a tombstone)."""
        return offset_records.serialize(connector, partition, offset)

    def write(self, producer: Producer, connector: str, offsets: OffsetUpdates) -> None:
        """Send offset records through ``producer``, each to its murmur2 partition.

        A plain producer is flushed; a transactional one is left to its transaction, which the caller
        commits together with its records.
        """
        try:
            for partition, offset in offsets:
                key, value = offset_records.serialize(connector, partition, offset)
                log_partition = offset_records.log_partition(key, self._partitions)
                producer.send(self._topic, value, key=key, partition=log_partition)
            if producer.transactional_id is None:
                producer.flush()
        except LogError as error:
            raise StorageError(
                f"Failed to write offsets of connector {connector} to {self._topic}: {error}"
            ) from error

    def put(self, connector: str, offsets: OffsetUpdates) -> None:
        """Write offsets with the store's own plain producer (None offsets reset their partitions)."""
        with self._write_lock:
            self.write(self._own_producer(), connector, offsets)

    def _apply(self, record: ConsumerRecord) -> None:
        parsed = None if record.key is None else offset_records.parse_key(record.key)
        if parsed is None:
            logger.warning(
                "Ignoring record %s-%d@%d: not a source offset key",
                self._topic,
                record.partition,
                record.offset,
            )
            return
        connector, partition = parsed
        offset = None if record.value is None else offset_records.parse_value(record.value)
        if record.value is not None and offset is None:
            logger.warning(
                "Ignoring offset of connector %s at %s-%d@%d: not a JSON object",
                connector,
                self._topic,
                record.partition,
                record.offset,
            )
            return
        key = offset_records.partition_key(partition)
        with self._cache_lock:
            if offset is None:
                self._offsets.get(connector, {}).pop(key, None)
            else:
                self._offsets.setdefault(connector, {})[key] = SourceOffset(partition, offset)
