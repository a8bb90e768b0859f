"""Writing one Spark partition of one batch to the log exactly once.

Every (write, batch, Spark partition) is written by a transactional producer whose id is derived from
the write and the Spark partition. In the same transaction as the rows, it commits a *marker*: the
consumer-group offset of partition 0 of the topic ``__conveyor_spark_sink``, in a group of its own
named after the write and the Spark partition, set to ``batch id + 1``. Before writing, a task claims
the transactional id (which fences any older attempt and aborts its open transaction, or waits for its
commit to complete) and then reads the marker: if it already passed this batch, the rows are in the
log and the task writes nothing. Rows and marker commit together or not at all, so however often Spark
retries a task or replays a batch, its rows land once. The same holds on Kafka, whose transactions
and transactional offset commits are the ones this relies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from typing import Final

import pyarrow as pa

from conveyor.log import Producer, TopicPartition, open_log
from conveyor.spark.datasource.outgoing import outgoing

MARKER_TOPIC: Final = "__conveyor_spark_sink"
"""The topic the markers are offsets of; it never holds records. Kafka takes offsets only of partitions
that exist, so writers create it (one partition) when it is missing."""


@dataclass(frozen=True)
class WriteIdentity:
    """Who writes: the write (a streaming query's id, or a batch write's own id), its batch and partition."""

    write_id: str
    batch_id: int
    spark_partition: int

    @property
    def transactional_id(self) -> str:
        return f"conveyor-spark-{self.write_id}-{self.spark_partition}"

    @property
    def marker_group(self) -> str:
        return f"conveyor-spark-sink-{self.write_id}-{self.spark_partition}"

    @property
    def marker_partition(self) -> TopicPartition:
        return TopicPartition(MARKER_TOPIC, 0)


@dataclass(frozen=True)
class PartitionWritten:
    """What one task did: how many rows it wrote, or that the batch was already written."""

    rows: int
    already_written: bool


def _drain(batches: Iterable[pa.RecordBatch]) -> None:
    for _ in batches:
        pass


def _send_all(producer: Producer, batches: Iterator[pa.RecordBatch], topic_option: str | None) -> int:
    rows = 0
    for batch in batches:
        for records in outgoing(batch, topic_option):
            producer.send_batch(
                records.topic, records.values, records.keys, records.partition, records.headers
            )
            rows += len(records.values)
    return rows


def write_partition(
    log_url: str,
    identity: WriteIdentity,
    batches: Iterator[pa.RecordBatch],
    topic_option: str | None,
    transaction_timeout_ms: int,
) -> PartitionWritten:
    """Write the rows of ``batches`` and the marker in one transaction, unless the marker says done."""
    with (
        open_log(log_url) as log,
        log.producer(identity.transactional_id, transaction_timeout_ms=transaction_timeout_ms) as producer,
    ):
        admin = log.admin()
        admin.create_topic(MARKER_TOPIC, partitions=1, exist_ok=True)
        producer.init_transactions()
        committed = admin.list_consumer_group_offsets(identity.marker_group)
        marker = committed.get(identity.marker_partition)
        if marker is not None and marker.offset > identity.batch_id:
            _drain(batches)
            return PartitionWritten(0, already_written=True)
        producer.begin_transaction()
        try:
            rows = _send_all(producer, batches, topic_option)
            producer.send_offsets_to_transaction(
                {identity.marker_partition: identity.batch_id + 1}, identity.marker_group
            )
            producer.commit_transaction()
        except BaseException:
            with suppress(Exception):  # a fenced producer cannot abort; its successor already did
                producer.abort_transaction()
            raise
        return PartitionWritten(rows, already_written=False)
