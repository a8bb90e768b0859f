"""Exactly once through a `kill -9` of the worker: `conveyor standalone` with exactly-once source support
streams the changes of two concurrent writers, is killed mid-stream, restarts on its data dir, and a
read_committed reader finds every row change exactly once, in commit order."""

from __future__ import annotations

import json
import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database, query
from tests.conveyor_process import ConveyorProcess, start_conveyor
from tests.waiting import wait_until
from tests.worker.support import JSON_CONVERTER, read_topic

from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.log import open_log
from conveyor.postgres_server import PostgresServer

STARTUP_S = 180.0
DEADLINE_S = 180.0
WRITERS = 2
TRANSACTIONS = 150
KILL_AFTER_CHANGES = 60
TOPIC = "eos.public.accounts"


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdceos") as target:
        execute(
            target, "CREATE TABLE accounts (id int PRIMARY KEY, writer int NOT NULL, version int NOT NULL)"
        )
        yield target


def worker_process(data_dir: Path) -> ConveyorProcess:
    data_dir.mkdir(exist_ok=True)
    properties = data_dir.parent / "worker.properties"
    properties.write_text(
        f"data.dir={data_dir}\nlisteners=http://127.0.0.1:0\nexactly.once.source.support=enabled\n"
        f"offset.flush.interval.ms=500\ntask.restart.backoff.initial.ms=200\n"
    )
    return start_conveyor(["standalone", "--no-status", str(properties)], data_dir.parent, STARTUP_S)


def write(database: PostgresAddress, writer: int, done: threading.Event) -> None:
    """``TRANSACTIONS`` transactions, each inserting a row of this writer and updating it."""
    connection = connect(database)
    try:
        for n in range(TRANSACTIONS):
            row = writer * 100_000 + n
            with connection, connection.cursor() as cursor:
                cursor.execute("INSERT INTO accounts VALUES (%s, %s, 0)", (row, writer))
                cursor.execute("UPDATE accounts SET version = 1 WHERE id = %s", (row,))
            done.wait(0.01)
    finally:
        connection.close()


def changes(data_dir: Path) -> list[dict[str, Any]]:
    """The payload of every change event a read_committed reader finds in the topic."""
    with open_log(f"embedded:{data_dir / 'log'}") as log:
        return [json.loads(record.value)["payload"] for record in read_topic(log, TOPIC) if record.value]


def test_every_change_arrives_once_in_commit_order_across_a_kill_9_of_the_worker(
    tmp_path: Path, database: PostgresAddress
) -> None:
    data_dir = tmp_path / "data"
    config = {
        **cdc_config(database, "eos", **{"slot.name": f"eos_{uuid.uuid4().hex[:8]}"}),
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "max.batch.size": "7",
        "exactly.once.support": "required",
    }
    worker = worker_process(data_dir)
    writers: list[threading.Thread] = []
    stop = threading.Event()
    try:
        with worker.client() as client:
            created = client.post("/connectors", json={"name": "eos-cdc", "config": config})
            assert created.status_code == 201, created.text
        execute(database, "INSERT INTO accounts VALUES (-1, -1, 0)")
        wait_until(lambda: changes(data_dir), "the first change in the topic", DEADLINE_S)
        writers = [
            threading.Thread(target=write, args=(database, writer, stop), daemon=True)
            for writer in range(WRITERS)
        ]
        for thread in writers:
            thread.start()
        wait_until(
            lambda: len(changes(data_dir)) >= KILL_AFTER_CHANGES, "changes before the kill", DEADLINE_S
        )
        worker.kill()
        written_before_the_kill = len(changes(data_dir))
        worker = worker_process(data_dir)
        for thread in writers:
            thread.join(DEADLINE_S)
        expected = 1 + WRITERS * TRANSACTIONS * 2
        wait_until(lambda: len(changes(data_dir)) >= expected, "every change after the restart", DEADLINE_S)
        found = changes(data_dir)
    finally:
        stop.set()
        worker.stop()

    assert written_before_the_kill < expected, "the kill came after the last change: nothing was tested"
    assert len(found) == expected
    seen = [(event["op"], event["after"]["id"], event["after"]["version"]) for event in found]
    assert len(set(seen)) == len(seen)
    for writer in range(WRITERS):
        mine = [change for change in seen if change[1] // 100_000 == writer and change[1] >= 0]
        rows = [writer * 100_000 + n for n in range(TRANSACTIONS)]
        assert mine == [change for row in rows for change in (("c", row, 0), ("u", row, 1))]
    sequences = [json.loads(event["source"]["sequence"]) for event in found]
    positions = [(int(previous), int(lsn)) for previous, lsn in sequences if previous is not None]
    assert positions == sorted(positions)


SNAPSHOT_ROWS = 30_000
SNAPSHOT_TOPIC = "eossnap.public.accounts"


def snapshot_events(data_dir: Path) -> list[dict[str, Any]]:
    with open_log(f"embedded:{data_dir / 'log'}") as log:
        return [
            json.loads(record.value)["payload"] for record in read_topic(log, SNAPSHOT_TOPIC) if record.value
        ]


CHURN_TRANSACTIONS = 20_000
"""A bound on the churning writer, which otherwise runs until the snapshot is complete."""


def churn(database: PostgresAddress, stop: threading.Event) -> None:
    """Until ``stop``, one-row transactions: an update of a live row (its version up by one), now and then
    an insert of a new row or a delete."""
    rng = random.Random(20)
    alive = list(range(1, SNAPSHOT_ROWS + 1))
    new_id = 100_000
    connection = connect(database)
    try:
        for _ in range(CHURN_TRANSACTIONS):
            if stop.is_set():
                return
            choice = rng.random()
            with connection, connection.cursor() as cursor:
                if choice < 0.2:
                    cursor.execute("INSERT INTO accounts VALUES (%s, 1, 0)", (new_id,))
                    alive.append(new_id)
                    new_id += 1
                elif choice < 0.3:
                    row = alive.pop(rng.randrange(len(alive)))
                    cursor.execute("DELETE FROM accounts WHERE id = %s", (row,))
                else:
                    row = alive[rng.randrange(len(alive))]
                    cursor.execute("UPDATE accounts SET version = version + 1 WHERE id = %s", (row,))
            stop.wait(0.01)
    finally:
        connection.close()


def duplicates_and_gaps(events: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """What a consumer applying the events in order would find wrong, row by row: a second read or insert
    of a row it has, a change of a row it lacks (duplicates), or an update skipping a version (a gap)."""
    duplicates: list[str] = []
    gaps: list[str] = []
    versions: dict[int, int] = {}
    reads: set[int] = set()
    for event in events:
        op, row = event["op"], event["after"] or event["before"]
        row_id = row["id"]
        if op == "r" and row_id in reads:
            duplicates.append(f"second read of {row_id}")
        if op in ("r", "c"):
            if row_id in versions:
                duplicates.append(f"{op} of {row_id}, which the consumer has")
            reads.add(row_id)
            versions[row_id] = row["version"]
        elif op == "u":
            if row_id not in versions:
                duplicates.append(f"update of {row_id}, which the consumer lacks")
            elif row["version"] != versions[row_id] + 1:
                gaps.append(f"{row_id} went from version {versions[row_id]} to {row['version']}")
            versions[row_id] = row["version"]
        elif op == "d" and versions.pop(row_id, None) is None:
            duplicates.append(f"delete of {row_id}, which the consumer lacks")
    return duplicates, gaps


def test_a_kill_9_of_the_worker_mid_snapshot_reads_each_row_once_and_delivers_every_change_once(
    tmp_path: Path, database: PostgresAddress
) -> None:
    """The exported snapshot dies with the worker; the restarted worker keeps the slot, reads the chunks not
    yet written in a newer snapshot, and a writer churning the table all along loses and repeats nothing."""
    execute(
        database,
        f"INSERT INTO accounts SELECT n, 0, 0 FROM generate_series(1, {SNAPSHOT_ROWS}) AS n",
    )
    data_dir = tmp_path / "data"
    config = {
        **cdc_config(database, "eossnap", **{"slot.name": f"eos_{uuid.uuid4().hex[:8]}"}),
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "max.batch.size": "200",
        "tasks.max": "2",
        "snapshot.chunk.size": "1000",
        "exactly.once.support": "required",
    }
    worker = worker_process(data_dir)
    stop = threading.Event()
    writer = threading.Thread(target=churn, args=(database, stop), daemon=True)
    try:
        with worker.client() as client:
            created = client.post("/connectors", json={"name": "eos-snapshot", "config": config})
            assert created.status_code == 201, created.text
        writer.start()
        wait_until(lambda: snapshot_events(data_dir), "the first snapshot records", DEADLINE_S)
        worker.kill()
        read_before_the_kill = len(snapshot_events(data_dir))
        worker = worker_process(data_dir)

        def snapshot_complete() -> bool:
            found = snapshot_events(data_dir)
            return sum(1 for event in found if event["op"] == "r") > 0 and any(
                event["op"] != "r" for event in found
            )

        wait_until(snapshot_complete, "the snapshot and the first streamed change", DEADLINE_S)
        stop.set()
        writer.join(DEADLINE_S)
        execute(database, "INSERT INTO accounts VALUES (-3, -3, 0)")

        def streamed() -> list[dict[str, Any]]:
            found = snapshot_events(data_dir)
            return found if any(event["after"] and event["after"]["id"] == -3 for event in found) else []

        found = wait_until(streamed, "the change made after the writer stopped", DEADLINE_S)
    finally:
        stop.set()
        worker.stop()

    assert read_before_the_kill < SNAPSHOT_ROWS, "the kill came after the snapshot: nothing was tested"
    assert duplicates_and_gaps(found) == ([], [])
    table = {row[0]: row[2] for row in query(database, "SELECT id, writer, version FROM accounts")}
    versions: dict[int, int] = {}
    for event in found:
        if event["op"] == "d":
            versions.pop(event["before"]["id"])
        else:
            versions[event["after"]["id"]] = event["after"]["version"]
    assert versions == table
