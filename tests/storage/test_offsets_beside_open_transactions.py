"""Reading an offsets topic to its end sees every offset committed so far, even one written after another
producer's transaction that is still open on the same partition (Kafka's KafkaBasedLog reads read_committed
up to the high watermark, not the last stable offset, for this reason)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.log import Log, Producer
from conveyor.storage import OffsetStore, StoreOffsetStorageReader
from conveyor.storage.errors import StorageTimeoutError
from log_backends import BACKENDS, fresh_log_url

TOPIC = "shared-offsets"
CONNECTOR = "gen"
TASK_0 = {"task": 0}
TASK_1 = {"task": 1}
SHORT_READ_S = 2.0
"""How long a read is given while a transaction stays open that it must wait for: it can never end."""


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Both logs keep transactions open while later ones commit on the same partition."""
    return fresh_log_url(request, request.param, tmp_path)


@pytest.fixture
def writer(log: Log) -> Iterator[OffsetStore]:
    """The store the tasks write their offsets with: one partition, so both tasks share it."""
    store = OffsetStore(log, TOPIC, partitions=1)
    store.start()
    yield store
    store.stop()


def transactional(log: Log, transactional_id: str) -> Producer:
    producer = log.producer(transactional_id=transactional_id)
    producer.init_transactions()
    producer.begin_transaction()
    return producer


def test_a_task_restarting_beside_an_open_transaction_reads_the_offset_it_committed_after_it(
    log: Log, writer: OffsetStore
) -> None:
    task_1 = transactional(log, "gen-1")
    writer.write(task_1, CONNECTOR, [(TASK_1, {"seqno": 7})])
    task_1.flush()
    task_0 = transactional(log, "gen-0")
    writer.write(task_0, CONNECTOR, [(TASK_0, {"seqno": 5})])
    task_0.commit_transaction()

    restarted = OffsetStore(log, TOPIC, partitions=1)
    try:
        with pytest.raises(StorageTimeoutError):
            restarted.start(timeout_s=SHORT_READ_S)
        task_1.abort_transaction()
        reader = StoreOffsetStorageReader(restarted, CONNECTOR)
        assert reader.offset(TASK_0) == {"seqno": 5}
        assert reader.offset(TASK_1) is None
    finally:
        restarted.stop()
        task_0.close()
        task_1.close()
