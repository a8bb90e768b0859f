"""KIP-875 under KIP-618: a stopped exactly-once source's offsets, written in one transaction as its task 0.

Kafka's `Worker.modifySourceConnectorOffsets` writes them through a transactional producer whose id is
the connector's first task's, so that a zombie of that task still holding the id is fenced too, and the
offsets become visible all at once or not at all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from conveyor.log.errors import LogError
from conveyor.runtime.source_task import EXACTLY_ONCE_PRODUCER_SETTINGS
from conveyor.settings.client_overrides import ClientType, allowed_overrides, built_with_overrides
from conveyor.settings.names import task_transactional_id
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import ConnectorOffsetStore
from conveyor.storage.errors import StorageError
from conveyor.storage.offset_store import OffsetUpdates


def write_offsets_in_transaction(
    store: ConnectorOffsetStore,
    worker: WorkerConfig,
    connector_config: Mapping[str, str],
    connector: str,
    offsets: OffsetUpdates,
) -> None:
    """Write `offsets` of `connector` to `store` in one transaction with its task 0's transactional id,
    through a producer made with the connector's producer overrides (so with its principal), on the log of
    the store's primary topic (the cluster the connector produces to)."""
    overrides = {
        key: value
        for key, value in allowed_overrides(
            worker.client_override_policy, connector_config, ClientType.PRODUCER
        ).items()
        if key not in EXACTLY_ONCE_PRODUCER_SETTINGS
    }
    transactional_id = task_transactional_id(worker.group_id, connector, 0)
    producer = built_with_overrides(
        ClientType.PRODUCER,
        overrides,
        lambda: store.primary.log.producer(transactional_id=transactional_id, **overrides),
    )
    try:
        producer.init_transactions()
        producer.begin_transaction()
        store.write(connector, offsets, producer)
        producer.commit_transaction()
    except LogError as error:
        raise StorageError(
            f"Failed to write the offsets of connector {connector} in a transaction with transactional id "
            f"{transactional_id}: {error}"
        ) from error
    finally:
        with contextlib.suppress(LogError):
            producer.close()
