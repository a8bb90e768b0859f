"""The ``OffsetStorageReader`` a source task is given: its connector's committed offsets, read fresh."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conveyor.api.source import OffsetStorageReader
from conveyor.storage.connector_offset_store import ConnectorOffsetStore
from conveyor.storage.offset_store import OffsetStore


class StoreOffsetStorageReader(OffsetStorageReader):
    """Reads one connector's offsets, first catching up with the offsets topic (as Kafka's reader does)."""

    def __init__(self, store: OffsetStore | ConnectorOffsetStore, connector: str) -> None:
        self._store = store
        self._connector = connector

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        self._store.read_to_end()
        return self._store.get(self._connector, partition)

    def offsets(
        self, partitions: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
        self._store.read_to_end()
        return [(partition, self._store.get(self._connector, partition)) for partition in partitions]
