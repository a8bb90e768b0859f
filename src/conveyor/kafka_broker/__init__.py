"""A real single-node Apache Kafka broker (KRaft, combined broker and controller) for tests and demos.

Kafka's own jars come from Maven Central into a cache outside the project (``fetch_kafka``); a
``KafkaBroker`` formats a fresh store and runs ``kafka.Kafka`` on free loopback ports until stopped.
``KafkaConnect`` runs Kafka Connect itself (a distributed worker) from the same jars.
"""

from conveyor.kafka_broker.broker import KafkaBroker
from conveyor.kafka_broker.connect import KafkaConnect
from conveyor.kafka_broker.fetch import KAFKA_VERSION, KafkaDistribution, fetch_kafka

__all__ = ["KAFKA_VERSION", "KafkaBroker", "KafkaConnect", "KafkaDistribution", "fetch_kafka"]
