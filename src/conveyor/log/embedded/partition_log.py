"""Appending batches to a partition and reading them back, with the offsets Kafka would assign."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from conveyor.log.embedded import transactions
from conveyor.log.errors import UnknownTopicOrPartitionError
from conveyor.positions import TopicPartition


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """A batch row as read back: its offsets span, whether it was aborted, and its encoded records."""

    row_id: int
    base_offset: int
    last_offset: int
    aborted: bool
    payload: bytes


@dataclass(frozen=True, slots=True)
class PartitionBounds:
    log_start_offset: int
    high_watermark: int
    last_stable_offset: int


def append_batch(
    conn: sqlite3.Connection,
    topic: str,
    partition: int,
    payload: bytes,
    record_count: int,
    max_timestamp: int,
    txn_id: int | None,
) -> int:
    """Append an encoded batch at the partition's end (inside a write transaction); return its base offset."""
    row = conn.execute(
        "SELECT next_offset FROM partitions WHERE topic = ? AND partition = ?", (topic, partition)
    ).fetchone()
    if row is None:
        raise UnknownTopicOrPartitionError(f"Partition {topic}-{partition} does not exist")
    base_offset: int = row[0]
    next_offset = base_offset + record_count
    conn.execute(
        "INSERT INTO batches(topic, partition, base_offset, last_offset, txn_id, max_timestamp, payload)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (topic, partition, base_offset, next_offset - 1, txn_id, max_timestamp, payload),
    )
    conn.execute(
        "UPDATE partitions SET next_offset = ? WHERE topic = ? AND partition = ?",
        (next_offset, topic, partition),
    )
    if txn_id is not None:
        transactions.add_partition(conn, txn_id, topic, partition, base_offset)
    return base_offset


def partition_bounds(conn: sqlite3.Connection, partition: TopicPartition) -> PartitionBounds:
    """Log start offset, high watermark and last stable offset, as of the connection's snapshot."""
    row = conn.execute(
        "SELECT log_start_offset, next_offset FROM partitions WHERE topic = ? AND partition = ?",
        (partition.topic, partition.partition),
    ).fetchone()
    if row is None:
        raise UnknownTopicOrPartitionError(f"Partition {partition} does not exist")
    open_offset = transactions.first_open_offset(conn, partition.topic, partition.partition)
    return PartitionBounds(row[0], row[1], row[1] if open_offset is None else open_offset)


def read_batches(
    conn: sqlite3.Connection, partition: TopicPartition, from_offset: int, end_offset: int, limit: int
) -> Iterator[StoredBatch]:
    """Batches holding offsets in ``[from_offset, end_offset)``, in offset order, at most ``limit``.

    A batch's payload is read when the caller gets to it, by a query of its own: a reader that stops early
    (its poll is full) never reads the payloads of the batches after, which may each be megabytes (a
    cursor over the payloads would, as Python's ``sqlite3`` steps to the next row before handing one over).
    Consume the iterator inside the read transaction."""
    spans = conn.execute(
        "SELECT b.id, b.base_offset, b.last_offset, t.state FROM batches AS b"
        " LEFT JOIN txns AS t ON t.id = b.txn_id"
        " WHERE b.topic = ? AND b.partition = ? AND b.last_offset >= ? AND b.base_offset < ?"
        " ORDER BY b.last_offset LIMIT ?",
        (partition.topic, partition.partition, from_offset, end_offset, limit),
    ).fetchall()
    for row_id, base, last, state in spans:
        (payload,) = conn.execute("SELECT payload FROM batches WHERE id = ?", (row_id,)).fetchone()
        yield StoredBatch(row_id, base, last, state == transactions.ABORTED, payload)
