"""The Kafka backend of the log (``kafka://host:port,...``): Apache Kafka through confluent-kafka.

Where it differs from the embedded log, on purpose (Kafka's behaviour):
- A transaction's commit or abort writes a control record, which takes an offset: offsets of a
  transactional topic are not dense, and ``latest`` counts the markers.
- ``run_cleaner`` removes nothing: the brokers compact and apply retention in the background.
- Group membership (``group_coordinator``) is Kafka's own group coordinator, spoken to over the wire
  protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), since librdkafka only joins ``consumer`` groups.
"""

from conveyor.log.kafka.log import KafkaLog
from conveyor.log.kafka.settings import KafkaSettings, kafka_url_from_worker_props

__all__ = ["KafkaLog", "KafkaSettings", "kafka_url_from_worker_props"]
