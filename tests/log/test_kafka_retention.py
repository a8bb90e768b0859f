"""On Kafka, retention runs in the broker: a consumer whose position it removed is reset as it asks."""

from __future__ import annotations

import uuid

import pytest

from conveyor.log import Log, OffsetOutOfRangeError, TopicPartition, open_log
from conveyor.log.kafka import KafkaLog
from waiting import wait_until


@pytest.fixture
def kafka_log(kafka_bootstrap: str) -> KafkaLog:
    log = open_log(f"kafka://{kafka_bootstrap}?namespace=r{uuid.uuid4().hex[:12]}.")
    assert isinstance(log, KafkaLog)
    return log


def expired_topic(log: Log) -> TopicPartition:
    """A partition whose three records (stamped in 1970) the broker's retention has removed."""
    log.admin().create_topic("expiring", config={"retention.ms": 1000, "segment.ms": 100})
    with log.producer() as producer:
        producer.send_batch("expiring", [b"a", b"b", b"c"], partition=0, timestamps=[1, 2, 3])
    tp = TopicPartition("expiring", 0)

    def removed() -> bool:
        return log.admin().list_offsets([tp])[tp].earliest == 3

    wait_until(removed, "retention to remove the records", 120)
    return tp


def test_a_position_removed_by_retention_is_reset_to_the_earliest_kept_offset(kafka_log: KafkaLog) -> None:
    tp = expired_topic(kafka_log)
    with kafka_log.producer() as producer:
        producer.send("expiring", b"kept", partition=0)
    consumer = kafka_log.consumer(auto_offset_reset="earliest")
    consumer.assign([tp])
    consumer.seek(tp, 0)
    assert [record.value for record in consumer.poll(timeout=10)] == [b"kept"]
    consumer.close()


def test_a_position_removed_by_retention_fails_with_auto_offset_reset_none(kafka_log: KafkaLog) -> None:
    tp = expired_topic(kafka_log)
    consumer = kafka_log.consumer(auto_offset_reset="none")
    consumer.assign([tp])
    consumer.seek(tp, 0)
    with pytest.raises(OffsetOutOfRangeError, match="expiring-0"):
        consumer.poll(timeout=10)
    consumer.close()


def test_a_new_consumer_from_earliest_starts_at_the_earliest_kept_offset(kafka_log: KafkaLog) -> None:
    tp = expired_topic(kafka_log)
    with kafka_log.producer() as producer:
        producer.send("expiring", b"kept", partition=0)
    consumer = kafka_log.consumer(auto_offset_reset="earliest")
    consumer.assign([tp])
    assert consumer.position(tp) == 3
    assert [(record.offset, record.value) for record in consumer.poll(timeout=10)] == [(3, b"kept")]
    consumer.close()
