"""Reading a partition's stored batches: a payload is read only once the reader gets to its batch."""

from __future__ import annotations

from pathlib import Path

from conveyor.log.embedded.database import Database
from conveyor.log.embedded.partition_log import append_batch, read_batches
from conveyor.positions import TopicPartition

PARTITION = TopicPartition("t", 0)


def stored(tmp_path: Path, batches: int) -> Database:
    database = Database(tmp_path)
    with database.write() as conn:
        conn.execute("INSERT INTO partitions VALUES (?, ?, 0, 0)", (PARTITION.topic, PARTITION.partition))
        for index in range(batches):
            append_batch(conn, PARTITION.topic, PARTITION.partition, bytes([index]) * 1000, 10, 0, None)
    return database


def test_a_reader_that_stops_after_a_batch_reads_no_later_payload(tmp_path: Path) -> None:
    database = stored(tmp_path, 3)
    statements: list[str] = []
    with database.read() as conn:
        conn.set_trace_callback(statements.append)
        reader = read_batches(conn, PARTITION, 0, 30, 10)
        first = next(reader)
        reader.close()
        conn.set_trace_callback(None)
    database.close()

    assert first.payload == bytes([0]) * 1000
    assert [s for s in statements if "payload" in s] == [
        f"SELECT payload FROM batches WHERE id = {first.row_id}"
    ]


def test_a_reader_gets_every_batch_in_the_range_with_its_payload(tmp_path: Path) -> None:
    database = stored(tmp_path, 3)
    with database.read() as conn:
        read = [
            (b.base_offset, b.last_offset, b.payload[:1]) for b in read_batches(conn, PARTITION, 12, 30, 10)
        ]
    database.close()

    assert read == [(10, 19, b"\x01"), (20, 29, b"\x02")]
