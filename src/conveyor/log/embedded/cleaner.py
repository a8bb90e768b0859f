"""The log cleaner: retention for ``delete`` topics, compaction for ``compact`` topics.

It runs when asked (``Admin.run_cleaner``), never on its own, and only touches what lies below a
partition's last stable offset, so open transactions are never disturbed. Retention removes whole
batches from the start of a partition whose newest record is older than ``retention.ms`` and advances
the log start offset. Compaction rewrites the partition keeping, for each key, only its latest record;
aborted batches are dropped, and a tombstone (value None) that is the latest for its key is dropped
once it is older than ``delete.retention.ms``. Offsets never change: compacted batches record theirs.
"""

from __future__ import annotations

import sqlite3

from conveyor.log.api import CleanerResult
from conveyor.log.embedded.codec import DecodedBatch, decode_batch, encode_batch
from conveyor.log.embedded.partition_log import partition_bounds, read_batches
from conveyor.log.embedded.topics import TopicInfo
from conveyor.positions import TopicPartition

_ALL_BATCHES = 1 << 62


def clean_topic(conn: sqlite3.Connection, info: TopicInfo, now_ms: int) -> CleanerResult:
    """Clean every partition of a topic inside the caller's write transaction."""
    records = batches = 0
    policies = info.config["cleanup.policy"].split(",")
    for partition in range(info.partitions):
        tp = TopicPartition(info.name, partition)
        if "compact" in policies:
            removed = _compact(conn, tp, now_ms - int(info.config["delete.retention.ms"]))
            records, batches = records + removed[0], batches + removed[1]
        if "delete" in policies:
            removed = _apply_retention(conn, tp, now_ms - int(info.config["retention.ms"]))
            records, batches = records + removed[0], batches + removed[1]
    return CleanerResult(records, batches)


def _apply_retention(conn: sqlite3.Connection, partition: TopicPartition, cutoff_ms: int) -> tuple[int, int]:
    bounds = partition_bounds(conn, partition)
    rows = conn.execute(
        "SELECT id, base_offset, last_offset, max_timestamp, payload FROM batches"
        " WHERE topic = ? AND partition = ? AND last_offset < ? ORDER BY last_offset",
        (partition.topic, partition.partition, bounds.last_stable_offset),
    ).fetchall()
    doomed = []
    new_start = bounds.log_start_offset
    records = 0
    for row_id, _base, last_offset, max_timestamp, payload in rows:
        if max_timestamp >= cutoff_ms:
            break
        doomed.append((row_id,))
        records += len(decode_batch(payload))
        new_start = last_offset + 1
    if doomed:
        conn.executemany("DELETE FROM batches WHERE id = ?", doomed)
        conn.execute(
            "UPDATE partitions SET log_start_offset = ? WHERE topic = ? AND partition = ?",
            (new_start, partition.topic, partition.partition),
        )
    return records, len(doomed)


def _compact(
    conn: sqlite3.Connection, partition: TopicPartition, tombstone_cutoff_ms: int
) -> tuple[int, int]:
    bounds = partition_bounds(conn, partition)
    stored = list(read_batches(conn, partition, 0, bounds.last_stable_offset, _ALL_BATCHES))
    latest: dict[bytes | None, int] = {}
    decoded: list[tuple[int, int, DecodedBatch | None]] = []
    for batch in stored:
        records = None if batch.aborted else decode_batch(batch.payload)
        decoded.append((batch.row_id, batch.base_offset, records))
        if records is not None:
            for offset, key in zip(_offsets(batch.base_offset, records), records.keys, strict=True):
                latest[key] = offset
    removed_records = removed_batches = 0
    for row_id, base_offset, records in decoded:
        if records is None:
            conn.execute("DELETE FROM batches WHERE id = ?", (row_id,))
            removed_batches += 1
            continue
        keep = [
            i
            for i, (offset, key, value, timestamp) in enumerate(
                zip(
                    _offsets(base_offset, records),
                    records.keys,
                    records.values,
                    records.timestamps,
                    strict=True,
                )
            )
            if latest[key] == offset and (value is not None or timestamp >= tombstone_cutoff_ms)
        ]
        if len(keep) == len(records):
            continue
        removed_records += len(records) - len(keep)
        if not keep:
            conn.execute("DELETE FROM batches WHERE id = ?", (row_id,))
            removed_batches += 1
            continue
        offsets = _offsets(base_offset, records)
        payload = encode_batch(
            [records.values[i] for i in keep],
            [records.keys[i] for i in keep],
            [records.timestamps[i] for i in keep],
            [records.headers[i] for i in keep],
            [offsets[i] - base_offset for i in keep],
        )
        conn.execute("UPDATE batches SET payload = ?, txn_id = NULL WHERE id = ?", (payload, row_id))
    return removed_records, removed_batches


def _offsets(base_offset: int, records: DecodedBatch) -> list[int]:
    if records.offset_deltas is None:
        return list(range(base_offset, base_offset + len(records)))
    return [base_offset + delta for delta in records.offset_deltas]
