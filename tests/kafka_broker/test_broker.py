"""The test broker is a real Apache Kafka: it serves what a Kafka client writes, with transactions."""

from __future__ import annotations

import uuid

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


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
