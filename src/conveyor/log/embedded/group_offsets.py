"""Committed consumer-group offsets, kept in the log's database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

from conveyor.log.api import OffsetAndMetadata, OffsetsToCommit
from conveyor.log.errors import InvalidGroupIdError
from conveyor.positions import TopicPartition


def require_group_id(group_id: str | None) -> str:
    if not group_id:
        raise InvalidGroupIdError("Committing or fetching offsets needs a consumer group id")
    return group_id


def normalize_offsets(offsets: OffsetsToCommit) -> dict[TopicPartition, OffsetAndMetadata]:
    """Accept plain ints beside ``OffsetAndMetadata``."""
    return {
        partition: offset if isinstance(offset, OffsetAndMetadata) else OffsetAndMetadata(int(offset))
        for partition, offset in offsets.items()
    }


def write_offsets(
    conn: sqlite3.Connection, group_id: str, offsets: Mapping[TopicPartition, OffsetAndMetadata]
) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO group_offsets VALUES (?, ?, ?, ?, ?)",
        [(group_id, tp.topic, tp.partition, om.offset, om.metadata) for tp, om in offsets.items()],
    )


def read_offsets(
    conn: sqlite3.Connection, group_id: str, partitions: Iterable[TopicPartition] | None = None
) -> dict[TopicPartition, OffsetAndMetadata]:
    """The group's committed offsets (only those of ``partitions`` when given)."""
    rows = conn.execute(
        "SELECT topic, partition, offset, metadata FROM group_offsets WHERE group_id = ?", (group_id,)
    )
    committed = {TopicPartition(topic, p): OffsetAndMetadata(offset, meta) for topic, p, offset, meta in rows}
    if partitions is None:
        return committed
    wanted = set(partitions)
    return {tp: om for tp, om in committed.items() if tp in wanted}


def delete_offsets(conn: sqlite3.Connection, group_id: str) -> int:
    return conn.execute("DELETE FROM group_offsets WHERE group_id = ?", (group_id,)).rowcount
