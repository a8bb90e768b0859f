"""Topics and offsets through the admin client."""

from __future__ import annotations

import re

import pytest

from conveyor.log import (
    InvalidConfigError,
    InvalidPartitionsError,
    InvalidTopicError,
    Log,
    PartitionOffsets,
    TopicExistsError,
    TopicPartition,
    UnknownTopicOrPartitionError,
)

from .conftest import control_records


def test_created_topic_is_listed_and_described_with_its_settings(log: Log) -> None:
    admin = log.admin()
    admin.create_topic("configs", partitions=1, config={"cleanup.policy": "compact"})
    admin.create_topic("events", partitions=4, config={"retention.ms": 1000})
    assert admin.list_topics() == ["configs", "events"]
    described = admin.describe_topics(["configs", "events"])
    assert described["configs"].partitions == 1
    assert described["configs"].config["cleanup.policy"] == "compact"
    assert described["events"].partitions == 4
    assert described["events"].config["retention.ms"] == "1000"


def test_partition_counts_name_the_existing_topics_asked_for_or_every_topic(log: Log) -> None:
    admin = log.admin()
    admin.create_topic("orders", partitions=3)
    admin.create_topic("refunds", partitions=2)
    assert admin.partition_counts(["orders", "missing"]) == {"orders": 3}
    assert admin.partition_counts() == {"orders": 3, "refunds": 2}


def test_creating_an_existing_topic_fails_naming_it(log: Log, topic: str) -> None:
    with pytest.raises(TopicExistsError, match=topic):
        log.admin().create_topic(topic)


def test_creating_an_existing_topic_with_exist_ok_keeps_it(log: Log, topic: str) -> None:
    log.admin().create_topic(topic, partitions=5, exist_ok=True)
    assert log.admin().describe_topics([topic])[topic].partitions == 3


@pytest.mark.parametrize("name", ["", ".", "..", "has space", "x" * 250, "slash/topic"])
def test_illegal_topic_names_are_refused(log: Log, name: str) -> None:
    with pytest.raises(InvalidTopicError):
        log.admin().create_topic(name)


def test_zero_partitions_are_refused(log: Log) -> None:
    with pytest.raises(InvalidPartitionsError, match="none-here"):
        log.admin().create_topic("none-here", partitions=0)


def test_unknown_cleanup_policy_is_refused(log: Log) -> None:
    with pytest.raises(InvalidConfigError, match=r"cleanup\.policy"):
        log.admin().create_topic("odd", config={"cleanup.policy": "shred"})


def test_deleted_topic_is_gone_with_its_records(log: Log, topic: str) -> None:
    with log.producer() as producer:
        producer.send(topic, b"x", partition=0)
    admin = log.admin()
    admin.delete_topic(topic)
    assert topic not in admin.list_topics()
    with pytest.raises(UnknownTopicOrPartitionError, match=topic):
        admin.describe_topics([topic])
    admin.create_topic(topic, partitions=1)
    assert admin.list_offsets([TopicPartition(topic, 0)])[TopicPartition(topic, 0)].latest == 0


def test_deleting_an_unknown_topic_fails_naming_it(log: Log) -> None:
    with pytest.raises(UnknownTopicOrPartitionError, match="ghost"):
        log.admin().delete_topic("ghost")


def test_list_offsets_reports_earliest_latest_and_last_stable(log: Log, topic: str) -> None:
    tp = TopicPartition(topic, 1)
    with log.producer() as plain:
        plain.send_batch(topic, [b"a", b"b"], partition=1)
    transactional = log.producer("offsets-txn")
    transactional.init_transactions()
    transactional.begin_transaction()
    transactional.send_batch(topic, [b"c", b"d", b"e"], partition=1)
    transactional.flush()
    assert log.admin().list_offsets([tp]) == {tp: PartitionOffsets(earliest=0, latest=5, last_stable=2)}
    transactional.commit_transaction()
    end = 5 + control_records(log)
    assert log.admin().list_offsets([tp]) == {tp: PartitionOffsets(earliest=0, latest=end, last_stable=end)}


def test_list_offsets_of_a_missing_partition_names_it(log: Log, topic: str) -> None:
    with pytest.raises(UnknownTopicOrPartitionError, match=f"{topic}-9"):
        log.admin().list_offsets([TopicPartition(topic, 9)])


def test_the_cluster_id_is_one_stable_kafka_style_id(log: Log) -> None:
    cluster_id = log.admin().cluster_id()
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", cluster_id)
    assert log.admin().cluster_id() == cluster_id
