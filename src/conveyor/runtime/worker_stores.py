"""The worker group's offset and status stores, on the partitions and replication its config names."""

from __future__ import annotations

from collections.abc import Mapping

from conveyor.log import Log
from conveyor.log.api import IsolationLevel
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import OffsetStore
from conveyor.storage.status_store import StatusStore


def worker_offset_store(
    log: Log,
    worker: WorkerConfig,
    topic: str | None = None,
    *,
    isolation_level: IsolationLevel = "read_committed",
    consumer_config: Mapping[str, str] | None = None,
    create_missing: bool = True,
) -> OffsetStore:
    """An offset store on `topic` (a connector's own offsets topic) or else the worker's
    `offset.storage.topic`, created with the worker's `offset.storage.*` partitions and replication."""
    return OffsetStore(
        log,
        worker.offsets_topic if topic is None else topic,
        worker.offsets_partitions,
        worker.offsets_replication_factor,
        isolation_level,
        consumer_config,
        create_missing,
    )


def worker_status_store(log: Log, worker: WorkerConfig, *, create_missing: bool = True) -> StatusStore:
    """The status store on the worker's `status.storage.topic`, partitions and replication."""
    return StatusStore(
        log,
        worker.status_topic,
        worker.status_partitions,
        worker.status_replication_factor,
        create_missing=create_missing,
    )
