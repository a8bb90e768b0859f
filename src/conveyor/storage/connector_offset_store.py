"""A connector's view of source offsets: its own offsets topic first, the worker's global one second."""

from __future__ import annotations

import logging

from conveyor.log.api import Producer
from conveyor.storage.cached_topic import READ_TIMEOUT_S
from conveyor.storage.errors import StorageError
from conveyor.storage.offset_records import PartitionKey, SourceOffset, SourcePartition
from conveyor.storage.offset_store import OffsetStore, OffsetUpdates

logger = logging.getLogger(__name__)


class ConnectorOffsetStore:
    """Kafka's ConnectorOffsetBackingStore: reads merge both stores, the connector-specific one winning.

    Writes go to the primary store (the connector's own topic if it has one). Tombstones are first written
    to the worker's global store, so that a reset cannot be undone by a stale global offset; afterwards the
    regular offsets are copied to the global store on a best-effort basis. When both stores use the same
    topic of the same log only the connector store is used (a topic of that name on the cluster the
    connector produces to is another topic).
    """

    def __init__(self, connector_store: OffsetStore | None, worker_store: OffsetStore | None) -> None:
        if connector_store is None:
            if worker_store is None:
                raise ValueError("A connector offset store needs a connector-specific or worker-global store")
            self._primary, self._secondary = worker_store, None
        elif worker_store is not None and _same_topic(worker_store, connector_store):
            self._primary, self._secondary = connector_store, None
        else:
            self._primary, self._secondary = connector_store, worker_store

    @property
    def primary_offsets_topic(self) -> str:
        return self._primary.topic

    @property
    def primary(self) -> OffsetStore:
        return self._primary

    def read_to_end(self, timeout_s: float = READ_TIMEOUT_S) -> None:
        if self._secondary is not None:
            self._secondary.read_to_end(timeout_s)
        self._primary.read_to_end(timeout_s)

    def get(self, connector: str, partition: SourcePartition) -> dict[str, object] | None:
        found = self._primary.get(connector, partition)
        if found is None and self._secondary is not None:
            found = self._secondary.get(connector, partition)
        return found

    def offsets(self, connector: str) -> dict[PartitionKey, SourceOffset]:
        merged = {} if self._secondary is None else self._secondary.offsets(connector)
        merged.update(self._primary.offsets(connector))
        return merged

    def write(self, connector: str, offsets: OffsetUpdates, producer: Producer | None = None) -> None:
        """Write offsets to the primary store, through ``producer`` if given (a task's transactional one)."""
        updates = list(offsets)
        if self._secondary is not None:
            tombstones = [(partition, None) for partition, offset in updates if offset is None]
            if tombstones:
                self._secondary.put(connector, tombstones)
        if producer is None:
            self._primary.put(connector, updates)
        else:
            self._primary.write(producer, connector, updates)
        regular = [(partition, offset) for partition, offset in updates if offset is not None]
        if self._secondary is not None and regular:
            try:
                self._secondary.put(connector, regular)
            except StorageError:
                logger.warning(
                    "Failed to copy offsets of connector %s to the worker's offsets topic %s",
                    connector,
                    self._secondary.topic,
                    exc_info=True,
                )


def _same_topic(one: OffsetStore, other: OffsetStore) -> bool:
    return one.topic == other.topic and one.log is other.log
