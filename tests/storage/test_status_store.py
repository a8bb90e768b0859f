"""The status store keeps the latest status of each connector and task in the compacted status topic."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conveyor.log import Log, open_log
from conveyor.storage import Status, StatusStore

RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]
TOPIC = "connect-status"
RUNNING = Status("RUNNING", "worker-1:8083", generation=3)


@pytest.fixture
def store(log: Log) -> Iterator[StatusStore]:
    started = StatusStore(log)
    started.start()
    yield started
    started.stop()


def test_start_creates_a_compacted_topic_with_5_partitions(log: Log, store: StatusStore) -> None:
    description = log.admin().describe_topics([TOPIC])[TOPIC]
    assert description.partitions == 5
    assert description.config["cleanup.policy"] == "compact"


def test_connector_status_record_has_kafka_connect_bytes(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_connector("orders", RUNNING)
    assert raw_records(TOPIC) == [
        (
            b"status-connector-orders",
            b'{"state":"RUNNING","trace":null,"worker_id":"worker-1:8083","generation":3,"version":null}',
        )
    ]


def test_task_status_record_has_kafka_connect_bytes(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_task("orders", 2, Status("FAILED", "w1", trace="Traceback: boom", generation=1))
    assert raw_records(TOPIC) == [
        (
            b"status-task-orders-2",
            b'{"state":"FAILED","trace":"Traceback: boom","worker_id":"w1","generation":1,"version":null}',
        )
    ]


def test_a_status_record_carries_the_plugin_version_as_kafka_4_writes_it(
    store: StatusStore, raw_records: RawRecords
) -> None:
    store.put_task("orders", 0, Status("RUNNING", "w1", generation=2, version="4.3.1"))
    assert raw_records(TOPIC) == [
        (
            b"status-task-orders-0",
            b'{"state":"RUNNING","trace":null,"worker_id":"w1","generation":2,"version":"4.3.1"}',
        )
    ]


def test_status_records_are_read_with_and_without_a_version(log: Log, store: StatusStore) -> None:
    with log.producer() as producer:
        producer.send(
            TOPIC,
            b'{"state":"RUNNING","trace":null,"worker_id":"w1","generation":4,"version":"4.3.1"}',
            key=b"status-connector-orders",
        )
        producer.send(
            TOPIC,
            b'{"state":"RUNNING","trace":null,"worker_id":"w1","generation":4}',
            key=b"status-task-orders-0",
        )
        producer.flush()
    store.read_to_end()
    assert store.connector("orders") == Status("RUNNING", "w1", generation=4, version="4.3.1")
    assert store.task("orders", 0) == Status("RUNNING", "w1", generation=4)


def test_statuses_round_trip(store: StatusStore) -> None:
    store.put_connector("orders", RUNNING)
    store.put_task("orders", 0, RUNNING)
    store.put_task("orders", 1, Status("FAILED", "w2", "trace"))
    assert store.connector("orders") == RUNNING
    assert store.task("orders", 1) == Status("FAILED", "w2", "trace")
    assert store.tasks("orders") == {0: RUNNING, 1: Status("FAILED", "w2", "trace")}


def test_unknown_statuses_are_none(store: StatusStore) -> None:
    assert store.connector("orders") is None
    assert store.task("orders", 0) is None
    assert store.tasks("orders") == {}


def test_a_connector_name_with_dashes_keeps_its_task_numbers(log_url: str, store: StatusStore) -> None:
    store.put_task("my-orders-2", 7, RUNNING)
    with open_log(log_url) as second_log:
        second = StatusStore(second_log)
        second.start()
        assert second.tasks("my-orders-2") == {7: RUNNING}
        second.stop()


def test_another_worker_sees_statuses_after_reading_to_the_end(log_url: str, store: StatusStore) -> None:
    with open_log(log_url) as second_log:
        second = StatusStore(second_log)
        second.start()
        store.put_connector("orders", RUNNING)
        store.put_task("orders", 0, RUNNING)
        assert second.connector("orders") is None
        second.read_to_end()
        assert second.connector("orders") == RUNNING
        assert second.tasks("orders") == {0: RUNNING}
        second.stop()


def test_the_latest_status_wins(log_url: str, store: StatusStore) -> None:
    store.put_task("orders", 0, RUNNING)
    store.put_task("orders", 0, Status("PAUSED", "worker-1:8083", generation=3))
    with open_log(log_url) as second_log:
        second = StatusStore(second_log)
        second.start()
        assert second.task("orders", 0) == Status("PAUSED", "worker-1:8083", generation=3)
        second.stop()


def test_deleting_a_connector_tombstones_its_statuses(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_connector("orders", RUNNING)
    store.put_task("orders", 0, RUNNING)
    store.delete_connector("orders")
    tombstones = {key for key, value in raw_records(TOPIC) if value is None}
    assert tombstones == {b"status-connector-orders", b"status-task-orders-0"}
    assert store.connector("orders") is None
    assert store.tasks("orders") == {}


def test_another_worker_sees_a_deletion(log_url: str, store: StatusStore) -> None:
    with open_log(log_url) as second_log:
        second = StatusStore(second_log)
        second.start()
        store.put_connector("orders", RUNNING)
        store.put_task("orders", 0, RUNNING)
        second.read_to_end()
        store.delete_connector("orders")
        second.read_to_end()
        assert second.connector("orders") is None
        assert second.tasks("orders") == {}
        second.stop()


def test_a_safe_write_does_not_overwrite_a_newer_generation_of_another_worker(store: StatusStore) -> None:
    store.put_task("orders", 0, Status("RUNNING", "w2", generation=5))
    store.put_task("orders", 0, Status("UNASSIGNED", "w1", generation=4), safe=True)
    assert store.task("orders", 0) == Status("RUNNING", "w2", generation=5)


def test_a_safe_write_overwrites_the_same_workers_status(store: StatusStore) -> None:
    store.put_task("orders", 0, Status("RUNNING", "w1", generation=5))
    store.put_task("orders", 0, Status("UNASSIGNED", "w1", generation=4), safe=True)
    assert store.task("orders", 0) == Status("UNASSIGNED", "w1", generation=4)


def test_a_safe_write_overwrites_an_older_generation(store: StatusStore) -> None:
    store.put_connector("orders", Status("RUNNING", "w2", generation=4))
    store.put_connector("orders", Status("UNASSIGNED", "w1", generation=5), safe=True)
    assert store.connector("orders") == Status("UNASSIGNED", "w1", generation=5)


def test_safe_writes_together_skip_only_the_statuses_newer_from_another_worker(
    log_url: str, store: StatusStore
) -> None:
    with open_log(log_url) as other_log:
        other = StatusStore(other_log)
        other.start()
        other.put_task("orders", 1, Status("RUNNING", "w2", generation=5))
        other.stop()
    unassigned = Status("UNASSIGNED", "w1", generation=4)
    store.put_all_safe([("orders", None, unassigned), ("orders", 0, unassigned), ("orders", 1, unassigned)])
    with open_log(log_url) as reader_log:
        reader = StatusStore(reader_log)
        reader.start()
        written = [reader.connector("orders"), reader.task("orders", 0), reader.task("orders", 1)]
        reader.stop()
    assert written == [unassigned, unassigned, Status("RUNNING", "w2", generation=5)]


def test_concurrent_writers_lose_no_status(log_url: str, store: StatusStore) -> None:
    def report(task: int) -> None:
        for generation in range(10):
            store.put_task("orders", task, Status("RUNNING", f"w{task}", generation=generation))

    threads = [threading.Thread(target=report, args=(task,)) for task in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open_log(log_url) as second_log:
        second = StatusStore(second_log)
        second.start()
        expected = {task: Status("RUNNING", f"w{task}", generation=9) for task in range(6)}
        assert second.tasks("orders") == expected
        second.stop()


def test_malformed_status_records_are_ignored(log: Log, store: StatusStore) -> None:
    with log.producer() as producer:
        producer.send(TOPIC, b'{"state":"RUNNING"}', key=b"status-connector-orders")
        producer.send(TOPIC, b"not json", key=b"status-task-orders-0")
        producer.send(TOPIC, b'{"state":"RUNNING","worker_id":"w1","version":4}', key=b"status-task-orders-1")
        producer.flush()
    store.read_to_end()
    assert store.connector("orders") is None
    assert store.tasks("orders") == {}


class _FlushThenAnotherWorkerWrites:
    """A producer whose flush, once this store's record is in the topic, lets another worker write a newer
    status of the same task and this store's reader apply both, before the flush returns."""

    def __init__(self, producer: Any, meanwhile: Callable[[], None]) -> None:
        self._producer = producer
        self._meanwhile = meanwhile

    def __getattr__(self, name: str) -> Any:
        return getattr(self._producer, name)

    def flush(self, *args: Any, **kwargs: Any) -> Any:
        flushed = self._producer.flush(*args, **kwargs)
        self._meanwhile()
        return flushed


def test_a_status_written_while_the_reader_passes_a_newer_one_leaves_the_newer_one_cached(
    log_url: str, store: StatusStore
) -> None:
    newer = Status("RUNNING", "worker-2:8083", generation=5)
    with open_log(log_url) as second_log:
        other_worker = StatusStore(second_log)
        other_worker.start()

        def other_worker_writes_and_this_store_reads() -> None:
            other_worker.put_task("orders", 0, newer)
            store.read_to_end()

        with store._write_lock:
            store._producer = _FlushThenAnotherWorkerWrites(
                store._own_producer(), other_worker_writes_and_this_store_reads
            )
        store.put_task("orders", 0, Status("UNASSIGNED", "worker-1:8083", generation=4))
        other_worker.stop()

    assert store.task("orders", 0) == newer
