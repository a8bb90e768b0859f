"""The test broker is a real Apache Kafka: it serves what a Kafka client writes, with transactions."""

from __future__ import annotations

import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conveyor.kafka_broker.broker import new_cluster_id


def test_the_broker_serves_back_what_a_transactional_producer_committed(kafka_bootstrap: str) -> None:
    topic = f"broker-check-{uuid.uuid4().hex}"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": topic})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"hello")
    producer.commit_transaction(30)
    consumer = Consumer(
        {"bootstrap.servers": kafka_bootstrap, "group.id": topic, "isolation.level": "read_committed"}
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    message = consumer.poll(30)
    consumer.close()
    assert message is not None and message.value() == b"hello"


def test_a_new_cluster_id_never_starts_with_a_dash_the_storage_tool_would_read_as_an_option() -> None:
    assert not any(new_cluster_id().startswith("-") for _ in range(2_000))
