"""Fixtures of the storage tests: a real embedded log in a temporary directory, and a raw topic reader."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conveyor.log import ConsumerRecord, Log


def read_topic(log: Log, topic: str) -> list[ConsumerRecord]:
    """Every committed record of ``topic``, partition by partition, as a Kafka consumer would see them."""
    partitions = log.admin().describe_topics([topic])[topic].topic_partitions()
    with log.consumer(isolation_level="read_committed") as consumer:
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        ends = consumer.end_offsets(partitions)
        records: list[ConsumerRecord] = []
        while any(consumer.position(tp) < end for tp, end in ends.items()):
            records.extend(consumer.poll(timeout=0.1))
    return sorted(records, key=lambda record: (record.partition, record.offset))


@pytest.fixture
def topic_records(log: Log) -> Callable[[str], list[ConsumerRecord]]:
    """Reads every committed record of a topic."""
    return lambda topic: read_topic(log, topic)


RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]


@pytest.fixture
def raw_records(log: Log) -> RawRecords:
    """Reads the (key, value) bytes of every committed record of a topic."""
    return lambda topic: [(record.key, record.value) for record in read_topic(log, topic)]
