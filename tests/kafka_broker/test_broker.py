"""The test broker is a real Apache Kafka: it serves what a Kafka client writes, with transactions."""

from __future__ import annotations

import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conveyor.kafka_broker.broker import KafkaBroker, new_cluster_id


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


def test_a_broker_started_again_on_its_store_serves_what_it_stored_before(tmp_path: Path) -> None:
    """As `python -m conveyor.kafka_broker <directory> --port <port>` run a second time does."""
    broker = KafkaBroker(tmp_path / "broker")
    broker.start()
    try:
        first_id, bootstrap = broker.cluster_id, broker.bootstrap_servers
        topic = f"restart-check-{uuid.uuid4().hex}"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
        producer = Producer({"bootstrap.servers": bootstrap})
        producer.produce(topic, b"kept")
        assert producer.flush(30) == 0
    finally:
        broker.stop()
    again = KafkaBroker(tmp_path / "broker", port=broker.port)
    again.start()
    try:
        assert (again.cluster_id, again.bootstrap_servers) == (first_id, bootstrap)
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": topic})
        consumer.assign([TopicPartition(topic, 0, 0)])
        message = consumer.poll(30)
        consumer.close()
        assert message is not None and message.value() == b"kept"
    finally:
        again.stop()
