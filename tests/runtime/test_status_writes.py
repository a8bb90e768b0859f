"""A worker's status writes across a Kafka outage: what could not be written is written once the status
topic answers, so that the topic ends up saying what last happened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.waiting import wait_until

from conveyor.kafka_broker import KafkaBroker
from conveyor.log import open_log
from conveyor.runtime.status_writes import StatusKey, StatusWrites
from conveyor.storage import Status, StatusStore

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """A broker of this module's own (the session's is shared): each test stops it and starts it again."""
    with KafkaBroker(tmp_path_factory.mktemp("status-writes-broker")) as running:
        yield running


def written_status(bootstrap: str, topic: str, connector: str, task: int) -> Status | None:
    """The task's status as a store reading the topic afresh sees it."""
    with open_log(f"kafka://{bootstrap}") as log:
        store = StatusStore(log, topic, partitions=1)
        store.start()
        try:
            return store.task(connector, task)
        finally:
            store.stop()


def test_a_task_status_written_while_the_broker_is_down_reaches_the_topic_once_it_is_back(
    broker: KafkaBroker,
) -> None:
    bootstrap = broker.bootstrap_servers
    with open_log(f"kafka://{bootstrap}?producer.delivery.timeout.ms=5000") as log:
        store = StatusStore(log, "status-kept", partitions=1)
        store.start()
        writes = StatusWrites(store)
        key = StatusKey("conn", 0)
        writes.put(key, Status("RUNNING", "worker-a", generation=1))

        broker.stop()
        writes.put(key, Status("FAILED", "worker-a", "the log is unreachable", generation=1))
        assert writes.unwritten() == {
            key: Status("FAILED", "worker-a", "the log is unreachable", generation=1)
        }
        broker.start()

        def written() -> bool:
            writes.retry()
            return not writes.unwritten()

        wait_until(written, "the kept status to be written", 300.0, every_s=1.0)
        store.stop()
    assert written_status(bootstrap, "status-kept", "conn", 0) == Status(
        "FAILED", "worker-a", "the log is unreachable", 1
    )


def test_a_kept_status_of_work_that_stopped_here_is_never_written(broker: KafkaBroker) -> None:
    bootstrap = broker.bootstrap_servers
    with open_log(f"kafka://{bootstrap}?producer.delivery.timeout.ms=5000") as log:
        store = StatusStore(log, "status-forgotten", partitions=1)
        store.start()
        writes = StatusWrites(store)
        key = StatusKey("conn", 0)
        writes.put(key, Status("RUNNING", "worker-a", generation=1))

        broker.stop()
        writes.put(key, Status("FAILED", "worker-a", "the log is unreachable", generation=1))
        writes.forget(key)
        broker.start()
        writes.retry()
        store.stop()
    assert written_status(bootstrap, "status-forgotten", "conn", 0) == Status(
        "RUNNING", "worker-a", generation=1
    )
