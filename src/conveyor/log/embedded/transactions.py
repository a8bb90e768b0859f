"""Transactional ids, their epochs and their open transactions, as rows of the log's database.

A transaction gets a row in ``txns`` when it first appends a batch; while it is ``open`` its first offset
in each partition (``txn_partitions``) holds back that partition's last stable offset. Commit deletes the
row, so batches whose ``txn_id`` has no row are committed; abort keeps it as ``aborted`` so readers skip
its batches. Row ids are never reused (AUTOINCREMENT). There is no coordinator process: whoever writes,
or computes a last stable offset, first aborts the transactions whose deadline has passed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from conveyor.log.errors import ProducerFencedError

OPEN = "open"
ABORTED = "aborted"


@dataclass(frozen=True, slots=True)
class ProducerIdentity:
    """The producer id and epoch that a producer holds for its transactional id."""

    transactional_id: str
    producer_id: int
    epoch: int


def claim_transactional_id(conn: sqlite3.Connection, transactional_id: str) -> ProducerIdentity:
    """Bump the id's epoch (creating it at epoch 0) and abort what earlier epochs left open."""
    row = conn.execute(
        "SELECT producer_id, epoch FROM producers WHERE transactional_id = ?", (transactional_id,)
    ).fetchone()
    if row is None:
        next_id = conn.execute("SELECT coalesce(max(producer_id), -1) + 1 FROM producers").fetchone()[0]
        identity = ProducerIdentity(transactional_id, next_id, 0)
        conn.execute("INSERT INTO producers VALUES (?, ?, 0)", (transactional_id, next_id))
        return identity
    identity = ProducerIdentity(transactional_id, row[0], row[1] + 1)
    conn.execute(
        "UPDATE producers SET epoch = ? WHERE transactional_id = ?", (identity.epoch, transactional_id)
    )
    for (txn_id,) in conn.execute(
        "SELECT id FROM txns WHERE transactional_id = ? AND state = ?", (transactional_id, OPEN)
    ).fetchall():
        abort_transaction(conn, txn_id)
    return identity


def ensure_current_epoch(conn: sqlite3.Connection, identity: ProducerIdentity) -> None:
    """Raise ``ProducerFencedError`` when a newer producer has claimed the transactional id."""
    row = conn.execute(
        "SELECT epoch FROM producers WHERE transactional_id = ?", (identity.transactional_id,)
    ).fetchone()
    if row is None or row[0] != identity.epoch:
        raise ProducerFencedError(
            f"Producer with transactional id {identity.transactional_id} and epoch {identity.epoch} "
            f"has been fenced by a newer producer (epoch {None if row is None else row[0]})"
        )


def open_transaction(conn: sqlite3.Connection, identity: ProducerIdentity, deadline_ms: int) -> int:
    """Record an open transaction and return its row id."""
    cursor = conn.execute(
        "INSERT INTO txns(transactional_id, epoch, state, deadline_ms) VALUES (?, ?, ?, ?)",
        (identity.transactional_id, identity.epoch, OPEN, deadline_ms),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def transaction_state(conn: sqlite3.Connection, txn_id: int) -> str | None:
    """``open``, ``aborted``, or None once committed."""
    row = conn.execute("SELECT state FROM txns WHERE id = ?", (txn_id,)).fetchone()
    return None if row is None else str(row[0])


def add_partition(
    conn: sqlite3.Connection, txn_id: int, topic: str, partition: int, first_offset: int
) -> None:
    """Note that the transaction wrote to this partition, from ``first_offset`` on."""
    conn.execute(
        "INSERT OR IGNORE INTO txn_partitions VALUES (?, ?, ?, ?)", (txn_id, topic, partition, first_offset)
    )


def commit_transaction(conn: sqlite3.Connection, txn_id: int) -> None:
    conn.execute("DELETE FROM txn_partitions WHERE txn_id = ?", (txn_id,))
    conn.execute("DELETE FROM txns WHERE id = ?", (txn_id,))


def abort_transaction(conn: sqlite3.Connection, txn_id: int) -> None:
    conn.execute("DELETE FROM txn_partitions WHERE txn_id = ?", (txn_id,))
    conn.execute("UPDATE txns SET state = ? WHERE id = ?", (ABORTED, txn_id))


def has_expired_transactions(conn: sqlite3.Connection, now_ms: int) -> bool:
    """Whether some open transaction has outlived its deadline (a cheap, read-only check)."""
    row = conn.execute(
        "SELECT 1 FROM txns WHERE state = ? AND deadline_ms < ? LIMIT 1", (OPEN, now_ms)
    ).fetchone()
    return row is not None


def abort_expired_transactions(conn: sqlite3.Connection, now_ms: int) -> int:
    """Abort every open transaction past its deadline; return how many."""
    expired = conn.execute(
        "SELECT id FROM txns WHERE state = ? AND deadline_ms < ?", (OPEN, now_ms)
    ).fetchall()
    for (txn_id,) in expired:
        abort_transaction(conn, txn_id)
    return len(expired)


def first_open_offset(conn: sqlite3.Connection, topic: str, partition: int) -> int | None:
    """The first offset of the earliest open transaction in a partition, if any."""
    row = conn.execute(
        "SELECT min(first_offset) FROM txn_partitions WHERE topic = ? AND partition = ?", (topic, partition)
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def forget_aborted_without_batches(conn: sqlite3.Connection) -> int:
    """Delete aborted transactions whose batches the cleaner has removed; return how many."""
    still_referenced = "SELECT txn_id FROM batches WHERE txn_id IS NOT NULL"
    return conn.execute(
        f"DELETE FROM txns WHERE state = ? AND id NOT IN ({still_referenced})", (ABORTED,)
    ).rowcount
