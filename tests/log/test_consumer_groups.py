"""Subscribed consumers share a topic's partitions through their group, as Kafka's range assignment does."""

from __future__ import annotations

import threading
import time

import pytest

from conveyor.log import (
    Consumer,
    IllegalStateError,
    InvalidGroupIdError,
    Log,
    RebalanceListener,
    TopicPartition,
)
from conveyor.log.range_assignor import assign_ranges
from waiting import wait_until

from .conftest import embedded_only


def group_consumer(log: Log, group_id: str, auto_offset_reset: str = "latest") -> Consumer:
    """A consumer of ``group_id`` with short heartbeat, session and rebalance timeouts."""
    return log.consumer(
        group_id,
        auto_offset_reset=auto_offset_reset,
        heartbeat_interval_ms=50,
        session_timeout_ms=2_000,
        max_poll_interval_ms=5_000,
    )


class RecordingListener(RebalanceListener):
    def __init__(self) -> None:
        self.assigned: list[set[TopicPartition]] = []
        self.revoked: list[set[TopicPartition]] = []
        self.lost: list[set[TopicPartition]] = []

    def on_partitions_assigned(self, partitions: set[TopicPartition]) -> None:
        self.assigned.append(partitions)

    def on_partitions_revoked(self, partitions: set[TopicPartition]) -> None:
        self.revoked.append(partitions)

    def on_partitions_lost(self, partitions: set[TopicPartition]) -> None:
        self.lost.append(partitions)


def keep_polling(consumer: Consumer, stop: threading.Event) -> None:
    while not stop.is_set():
        consumer.poll(timeout=0.02)


def test_range_assignment_matches_kafkas_range_assignor() -> None:
    assignment = assign_ranges({"m1": ["t"], "m2": ["t"], "m3": ["t", "u"]}, {"t": 7, "u": 2}.__getitem__)
    assert assignment == {
        "m1": [TopicPartition("t", p) for p in (0, 1, 2)],
        "m2": [TopicPartition("t", p) for p in (3, 4)],
        "m3": [TopicPartition("t", p) for p in (5, 6)] + [TopicPartition("u", 0), TopicPartition("u", 1)],
    }


def test_lone_subscriber_gets_every_partition_and_reads_from_committed_offsets(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send_batch(topic, [b"a", b"b"], partition=1)
    setup = log.consumer("sinks")
    setup.assign([TopicPartition(topic, 1)])
    setup.commit({TopicPartition(topic, 1): 1})
    setup.close()
    listener = RecordingListener()
    consumer = group_consumer(log, "sinks", auto_offset_reset="earliest")
    consumer.subscribe([topic], listener)
    records = consumer.poll(timeout=5)
    assert consumer.assignment() == {TopicPartition(topic, p) for p in range(3)}
    assert listener.assigned == [consumer.assignment()]
    assert [r.value for r in records] == [b"b"]
    consumer.close()


def test_two_subscribers_split_the_partitions_and_the_survivor_takes_them_all(log: Log, topic: str) -> None:
    first_listener = RecordingListener()
    first = group_consumer(log, "split")
    first.subscribe([topic], first_listener)
    first.poll(timeout=0)
    stop = threading.Event()
    polling = threading.Thread(target=keep_polling, args=(first, stop))
    polling.start()
    second = group_consumer(log, "split")
    second.subscribe([topic])
    second.poll(timeout=0)
    wait_until(lambda: len(first_listener.assigned) >= 2, "a second assignment", 10)
    assert first.assignment() | second.assignment() == {TopicPartition(topic, p) for p in range(3)}
    assert not first.assignment() & second.assignment()
    assert first_listener.revoked[0] == {TopicPartition(topic, p) for p in range(3)}
    second.close()
    wait_until(lambda: len(first.assignment()) == 3, "all three partitions back", 10)
    stop.set()
    polling.join()
    assert len(first.assignment()) == 3
    first.close()


@embedded_only(reason="Kafka's consumer learns of a rebalance from its heartbeat, as Kafka's clients do")
def test_a_polling_member_rejoins_for_a_new_member_without_waiting_for_its_heartbeat(
    log: Log, topic: str
) -> None:
    first_listener = RecordingListener()
    first = log.consumer(
        "joined", heartbeat_interval_ms=600_000, session_timeout_ms=600_000, max_poll_interval_ms=120_000
    )
    first.subscribe([topic], first_listener)
    first.poll(timeout=0)
    stop = threading.Event()
    polling = threading.Thread(target=keep_polling, args=(first, stop))
    polling.start()
    second = group_consumer(log, "joined")
    second.subscribe([topic])
    second.poll(timeout=0)
    wait_until(lambda: len(first_listener.assigned) >= 2, "the first member to rejoin", 30)
    stop.set()
    polling.join()
    assert first.assignment() | second.assignment() == {TopicPartition(topic, p) for p in range(3)}
    assert first.assignment() and second.assignment()
    second.close()
    first.close()


def test_a_member_evicted_after_its_session_timeout_is_told_its_partitions_are_lost(
    log: Log, topic: str
) -> None:
    listener = RecordingListener()
    # Heartbeats further apart than the session: the member's own heartbeat finds it evicted.
    consumer = log.consumer("evicted", heartbeat_interval_ms=300, session_timeout_ms=100)
    consumer.subscribe([topic], listener)
    consumer.poll(timeout=0)
    held = consumer.assignment()
    assert listener.assigned == [held] and held
    deadline = time.monotonic() + 30
    while not listener.lost and time.monotonic() < deadline:
        consumer.poll(timeout=0.05)
    assert listener.lost[0] == held
    assert listener.revoked == []
    consumer.close()


def test_subscribe_needs_a_group_id(log: Log, topic: str) -> None:
    with pytest.raises(InvalidGroupIdError):
        log.consumer().subscribe([topic])


def test_assign_on_a_subscribed_consumer_is_an_illegal_state(log: Log, topic: str) -> None:
    consumer = group_consumer(log, "mixed")
    consumer.subscribe([topic])
    with pytest.raises(IllegalStateError, match="mixed"):
        consumer.assign([TopicPartition(topic, 0)])
    consumer.close()


def test_a_topic_created_after_subscribing_is_assigned_after_an_enforced_rebalance(log: Log) -> None:
    consumer = group_consumer(log, "late-topic", auto_offset_reset="earliest")
    consumer.subscribe(["appears-later"])
    consumer.poll(timeout=0.5)
    assert consumer.assignment() == set()
    log.admin().create_topic("appears-later", partitions=2)
    with log.producer() as producer:
        producer.send_batch("appears-later", [b"x"], partition=1)
    consumer.enforce_rebalance()
    records = consumer.poll(timeout=5)
    assert consumer.assignment() == {TopicPartition("appears-later", p) for p in range(2)}
    assert [r.value for r in records] == [b"x"]
    consumer.close()


def test_subscribing_again_replaces_the_subscribed_topics(log: Log, topic: str) -> None:
    log.admin().create_topic("other-topic")
    consumer = group_consumer(log, "resubscribe")
    consumer.subscribe([topic])
    consumer.poll(timeout=2)
    consumer.subscribe(["other-topic"])
    consumer.poll(timeout=2)
    assert consumer.assignment() == {TopicPartition("other-topic", 0)}
    consumer.close()
