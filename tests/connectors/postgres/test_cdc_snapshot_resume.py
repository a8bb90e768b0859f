"""A snapshot whose task 0 fails midway resumes in the same slot: the chunks not yet written are read in a
newer exported snapshot, no committed read comes again, and the changes made meanwhile reach a consumer
once each, those the newer snapshot already shows only through its reads."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from tests.connectors.connector_contexts import DictOffsetStorageReader
from tests.connectors.postgres.cdc_tasks import TaskRun, after, before, cdc_config, ops
from tests.connectors.postgres.databases import execute, fresh_database, query
from tests.waiting import wait_until

from conveyor.connectors.postgres.cdc_config import TASK_COUNT_CONFIG, TASK_INDEX_CONFIG
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.data import SourceRecord
from conveyor.postgres_server import PostgresServer

ROWS = 1000
CHUNK = 70
WAIT_S = 120.0
TOPIC = "resume.public.items"


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdcresume") as target:
        execute(
            target,
            "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)",
            f"INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1, {ROWS}) AS n",
        )
        yield target


def replay(records: list[SourceRecord]) -> dict[int, dict[str, Any]]:
    """The table a consumer builds by applying the events in order."""
    table: dict[int, dict[str, Any]] = {}
    for record in records:
        if record.topic != TOPIC or record.value is None:
            continue
        row = after(record)
        if row is None:
            old = before(record)
            assert old is not None
            table.pop(old["id"], None)
        else:
            table[row["id"]] = row
    return table


def changes(records: list[SourceRecord]) -> list[tuple[str | None, int]]:
    found: list[tuple[str | None, int]] = []
    for record in records:
        op = ops([record])[0]
        if op in ("c", "u", "d"):
            row = after(record) or before(record)
            assert row is not None
            found.append((op, row["id"]))
    return found


def read_ids(records: list[SourceRecord]) -> list[int]:
    return [row["id"] for record in records if ops([record]) == ["r"] and (row := after(record))]


def test_task_0_failing_mid_snapshot_resumes_in_the_same_slot_repeating_no_read_and_losing_no_change(
    database: PostgresAddress,
) -> None:
    slot = f"slot_{uuid.uuid4().hex[:8]}"
    config = cdc_config(database, "resume", **{"slot.name": slot, "snapshot.chunk.size": str(CHUNK)})
    config["max.batch.size"] = "50"
    first, second = ({**config, TASK_INDEX_CONFIG: str(i), TASK_COUNT_CONFIG: "2"} for i in range(2))
    offsets = DictOffsetStorageReader()
    leader = TaskRun(first, offsets)
    helper: TaskRun | None = None
    restarted: TaskRun | None = None
    try:
        leader.poll()
        leader.commit()
        helper = TaskRun(second, offsets)
        wait_until(lambda: len(helper.poll()) > 0, "the helper's first rows", WAIT_S, every_s=0.0)
        helper.commit()
        leader.poll()
        leader.commit()
        written = list(leader.records)
        assert leader.poll(), "task 0 had no batch to lose"
        leader.task.stop()

        # Chunk n holds the ids from 70n + 1: task 0 wrote chunk 0 (ids up to 70) and lost its read of
        # chunk 2, which it reads again with 12 and 14 in the newer snapshot; the helper reads the odd
        # chunks (800, 950) in the first snapshot, which its transaction keeps.
        execute(
            database,
            "UPDATE items SET name = 'changed while down' WHERE id IN (5, 150, 900)",
            "DELETE FROM items WHERE id IN (10, 160, 950)",
            "INSERT INTO items VALUES (-5, 'inserted while down'), (2000, 'inserted while down')",
            "UPDATE items SET id = 3000 WHERE id = 20",
            "UPDATE items SET id = -20 WHERE id = 800",
        )
        restarted = TaskRun(first, offsets)
        execute(database, "UPDATE items SET name = 'after the restart' WHERE id = 900")
        runs = (helper, restarted)

        def streamed_last_change() -> bool:
            for run in runs:
                run.poll()
                run.commit()
            return ("u", 900) in changes(restarted.records)

        wait_until(streamed_last_change, "the snapshot and the change made after it", WAIT_S, every_s=0.0)
        slots = query(
            database, "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE %s", (f"{slot}%",)
        )
    finally:
        for run in (leader, helper, restarted):
            if run is not None:
                run.task.stop()

    events = [*written, *helper.records, *restarted.records]
    reads = Counter(read_ids(events))
    assert [key for key, count in reads.items() if count > 1] == []
    assert slots == [(slot,)]
    assert changes(restarted.records) == [
        ("u", 5),
        ("d", 10),
        ("d", 950),
        ("c", -5),
        ("d", 20),
        ("d", 800),
        ("c", -20),
        ("u", 900),
    ]
    table = {
        row_id: {"id": row_id, "name": name} for row_id, name in query(database, "SELECT id, name FROM items")
    }
    assert replay(events) == table
