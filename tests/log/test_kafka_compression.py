"""On Kafka, the log's producers compress nothing unless `compression.type` says so, as Kafka's clients do;
with zstd, records whose bytes repeat (JSON with its schema in every record) take a fraction of their size
on the broker."""

from __future__ import annotations

import uuid

import pytest

from conveyor.log import open_log
from conveyor.log.kafka import KafkaLog
from conveyor.log.kafka.wire import Address, Connection, Writer

DESCRIBE_LOG_DIRS = 35
RECORDS = 200
VALUE = b'{"schema":{"type":"struct","fields":[' + b'{"type":"int64","optional":false,"field":"id"},' * 60


@pytest.fixture
def namespace() -> str:
    return f"z{uuid.uuid4().hex[:12]}."


@pytest.fixture
def kafka_log(kafka_bootstrap: str, namespace: str) -> KafkaLog:
    log = open_log(f"kafka://{kafka_bootstrap}?namespace={namespace}")
    assert isinstance(log, KafkaLog)
    return log


def bytes_on_broker(bootstrap: str, topic: str) -> int:
    """The size of ``topic``'s partitions in the broker's log directories (DescribeLogDirs v1)."""
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    connection = Connection(Address(host, int(port)), "size-probe", 30)
    try:
        body = Writer().int32(-1).build()
        reader = connection.request(DESCRIBE_LOG_DIRS, 1, body, 30, flexible=False)
    finally:
        connection.close()
    reader.int32()
    size = 0
    for _ in range(reader.count()):
        reader.int16()
        reader.string()
        for _ in range(reader.count()):
            name = reader.string()
            for _ in range(reader.count()):
                reader.int32()
                partition_size = reader.int64()
                reader.int64()
                reader.int8()
                if name == topic:
                    size += partition_size
    return size


def write(log: KafkaLog, topic: str, **config: object) -> None:
    log.admin().create_topic(topic, partitions=1)
    with log.producer(**config) as producer:
        producer.send_batch(topic, [VALUE + str(n).encode() + b"]}}" for n in range(RECORDS)], partition=0)
        producer.flush(60)


def test_compression_type_zstd_writes_repeating_records_compressed(
    kafka_log: KafkaLog, kafka_bootstrap: str, namespace: str
) -> None:
    write(kafka_log, "repeating", **{"compression.type": "zstd"})
    assert bytes_on_broker(kafka_bootstrap, namespace + "repeating") < RECORDS * len(VALUE) / 10


def test_records_are_written_as_they_are_by_default(
    kafka_log: KafkaLog, kafka_bootstrap: str, namespace: str
) -> None:
    write(kafka_log, "repeating")
    assert bytes_on_broker(kafka_bootstrap, namespace + "repeating") > RECORDS * len(VALUE)
