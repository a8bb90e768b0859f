"""Writing test records into a log: committed, aborted and still-open transactions."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.log import Headers, Log, Producer


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
