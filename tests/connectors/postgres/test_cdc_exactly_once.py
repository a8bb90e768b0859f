"""Exactly once through a `kill -9` of the worker: `conveyor standalone` with exactly-once source support
streams the changes of two concurrent writers, is killed mid-stream, restarts on its data dir, and a
read_committed reader finds every row change exactly once, in commit order."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database
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


def test_a_kill_9_of_the_worker_mid_snapshot_loses_no_row_and_repeats_no_streamed_change(
    tmp_path: Path, database: PostgresAddress
) -> None:
    """The exported snapshot dies with the worker, so the snapshot starts over (its reads may repeat, as
    with Debezium's), but every row is read, and the changes after it are streamed once each."""
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
    try:
        with worker.client() as client:
            created = client.post("/connectors", json={"name": "eos-snapshot", "config": config})
            assert created.status_code == 201, created.text
        wait_until(lambda: snapshot_events(data_dir), "the first snapshot records", DEADLINE_S)
        worker.kill()
        read_before_the_kill = len(snapshot_events(data_dir))
        execute(database, "INSERT INTO accounts VALUES (-2, -2, 0)")
        worker = worker_process(data_dir)

        expected = {*range(1, SNAPSHOT_ROWS + 1), -2}

        def snapshot_complete() -> bool:
            return expected <= {event["after"]["id"] for event in snapshot_events(data_dir)}

        wait_until(snapshot_complete, "every row after the restart", DEADLINE_S)
        execute(database, "INSERT INTO accounts VALUES (-3, -3, 0)")

        def streamed() -> list[dict[str, Any]]:
            found = snapshot_events(data_dir)
            return found if any(event["after"]["id"] == -3 for event in found) else []

        found = wait_until(streamed, "the change made after the snapshot", DEADLINE_S)
    finally:
        worker.stop()

    assert read_before_the_kill < SNAPSHOT_ROWS, "the kill came after the snapshot: nothing was tested"
    reads = {event["after"]["id"] for event in found if event["op"] == "r"}
    assert set(range(1, SNAPSHOT_ROWS + 1)) - reads == set()
    changes = [(event["op"], event["after"]["id"]) for event in found if event["op"] != "r"]
    assert changes in ([("c", -3)], [("c", -2), ("c", -3)])
