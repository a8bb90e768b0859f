"""Writing test records into a log: committed, aborted and still-open transactions."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.log import ConsumerRecord, Headers, Log, Producer


def committed(
    log: Log,
    topic: str,
    values: Sequence[bytes],
    partition: int | None = None,
    keys: Sequence[bytes | None] | None = None,
    headers: Sequence[Headers | None] | None = None,
    transactional_id: str = "test-writer",
) -> None:
    """Write ``values`` in one committed transaction."""
    with log.producer(transactional_id) as producer:
        producer.init_transactions()
        producer.begin_transaction()
        producer.send_batch(topic, values, keys, partition, headers)
        producer.commit_transaction()


def aborted(log: Log, topic: str, values: Sequence[bytes], partition: int | None = None) -> None:
    """Append ``values`` to the log in a transaction, then abort it."""
    with log.producer("test-aborter") as producer:
        producer.init_transactions()
        producer.begin_transaction()
        producer.send_batch(topic, values, partition=partition)
        producer.flush()
        producer.abort_transaction()


def left_open(log: Log, topic: str, values: Sequence[bytes], partition: int | None = None) -> Producer:
    """Append ``values`` in a transaction that stays open; the caller commits or aborts it."""
    producer = log.producer("test-open")
    producer.init_transactions()
    producer.begin_transaction()
    producer.send_batch(topic, values, partition=partition)
    producer.flush()
    return producer


def read_committed_values(log: Log, topics: Sequence[str]) -> list[ConsumerRecord]:
    """Every committed record of ``topics``, read with a plain consumer (no Spark)."""
    admin = log.admin()
    partitions = [tp for d in admin.describe_topics(topics).values() for tp in d.topic_partitions()]
    records: list[ConsumerRecord] = []
    with log.consumer(isolation_level="read_committed", auto_offset_reset="earliest") as consumer:
        consumer.assign(partitions)
        consumer.seek_to_beginning()
        ends = consumer.end_offsets(partitions)
        while any(consumer.position(tp) < ends[tp] for tp in partitions):
            records.extend(consumer.poll(timeout=0.1, max_records=10_000))
    return records
