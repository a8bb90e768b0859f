"""Fixtures of the log conformance suite: every test runs against each backend through the interface only."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from conveyor.log import ConsumerRecord, Log, TopicPartition
from log_backends import BACKENDS, embedded_only, fresh_log_url

__all__ = ["embedded_only"]

_topic_numbers = itertools.count()


@pytest.fixture(params=BACKENDS)
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a fresh, empty log of the backend under test.

    Every Kafka test shares the session's broker; a namespace of its own makes the log look fresh.
    """
    return fresh_log_url(request, request.param, tmp_path)


def backend_of(log: Log) -> str:
    return log.url.partition(":")[0]


def control_records(log: Log) -> int:
    """Offsets a commit or abort takes: Kafka writes a control record for each, the embedded log none."""
    return 1 if backend_of(log) == "kafka" else 0


@pytest.fixture
def topic(log: Log) -> str:
    """A fresh topic with three partitions."""
    name = f"topic-{next(_topic_numbers)}"
    log.admin().create_topic(name, partitions=3)
    return name


def partitions_of(log: Log, topic: str) -> list[TopicPartition]:
    return log.admin().describe_topics([topic])[topic].topic_partitions()


def read_all(log: Log, topic: str, isolation_level: str = "read_committed") -> list[ConsumerRecord]:
    """Every record a new consumer reads from the start of ``topic`` to its current end."""
    consumer = log.consumer(isolation_level=isolation_level, auto_offset_reset="earliest")  # type: ignore[arg-type]
    try:
        consumer.assign(partitions_of(log, topic))
        records: list[ConsumerRecord] = []
        while batch := consumer.poll(timeout=0.0, max_records=10_000):
            records.extend(batch)
        return records
    finally:
        consumer.close()


def values_of(records: list[ConsumerRecord]) -> list[bytes | None]:
    return [record.value for record in records]
