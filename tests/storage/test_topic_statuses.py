"""Topic statuses (KIP-558) in the status topic, with Kafka's keys and values."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conveyor.log import Log, open_log
from conveyor.storage import Status, StatusStore
from conveyor.storage.status_records import TopicStatus

from .test_status_store import TOPIC, RawRecords

ORDERS = TopicStatus("orders", "copy", 1, 1_700_000_000_000)


@pytest.fixture
def store(log: Log) -> Iterator[StatusStore]:
    started = StatusStore(log)
    started.start()
    yield started
    started.stop()


def test_a_topic_status_record_has_kafka_connect_bytes(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_topic(ORDERS)
    assert raw_records(TOPIC) == [
        (
            b"status-topic-orders:connector-copy",
            b'{"topic":{"name":"orders","connector":"copy","task":1,"discoverTimestamp":1700000000000}}',
        )
    ]


def test_a_topic_already_known_is_not_written_again(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_topic(ORDERS)
    store.put_topic(TopicStatus("orders", "copy", 0, 1_800_000_000_000))
    assert len(raw_records(TOPIC)) == 1


def test_another_worker_reads_the_topics_of_a_connector(log_url: str, store: StatusStore) -> None:
    store.put_topic(ORDERS)
    store.put_topic(TopicStatus("payments", "copy", 0, 1))
    with open_log(log_url) as other_log:
        other = StatusStore(other_log)
        other.start()
        try:
            assert [status.topic for status in other.topic_statuses("copy")] == ["orders", "payments"]
        finally:
            other.stop()


def test_deleting_the_topics_tombstones_them(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_topic(ORDERS)
    store.delete_topics("copy")
    assert store.topic_statuses("copy") == []
    assert raw_records(TOPIC)[-1] == (b"status-topic-orders:connector-copy", None)


def test_deleting_a_connector_forgets_its_topics(store: StatusStore, raw_records: RawRecords) -> None:
    store.put_connector("copy", Status("RUNNING", "w1"))
    store.put_topic(ORDERS)
    store.delete_connector("copy")
    assert store.topic_statuses("copy") == []
    assert (b"status-topic-orders:connector-copy", None) in raw_records(TOPIC)
