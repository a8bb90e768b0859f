"""`kill -9` of a `conveyor standalone` worker while the JDBC source copies rows that a concurrent writer
keeps inserting: with exactly-once on, a new worker on the same data dir (in the test's process, to spare a
second process start) resumes from the offsets committed with the records, and a read_committed reader
finds every row once, in order."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.connectors.postgres.databases import execute, fresh_database
from tests.conveyor_process import ConveyorProcess, start_standalone

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.log import open_log
from conveyor.postgres_server import PostgresServer

from .support import JSON_CONVERTER, exactly_once, read_values, running_worker, wait_for_states, wait_until

ROWS = 3000
ROWS_PER_INSERT = 25
KILL_AFTER = 600
STARTUP_S = 240.0
DONE_WITHIN_S = 240.0
TOPIC = "eos-orders"
SETTLE_S = 1.0
"""How long the resumed worker may go on after the last row, for a duplicate to show."""


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jdbckill") as target:
        execute(target, "CREATE TABLE orders (id bigserial PRIMARY KEY, item text NOT NULL)")
        yield target


@pytest.fixture
def writer(database: PostgresAddress) -> Iterator[threading.Thread]:
    """Inserts ``ROWS`` rows, a few at a time, until done or the test ends."""
    done = threading.Event()

    def write() -> None:
        for first in range(1, ROWS + 1, ROWS_PER_INSERT):
            if done.is_set():
                return
            last = min(ROWS, first + ROWS_PER_INSERT - 1)
            execute(
                database,
                "INSERT INTO orders (item) SELECT 'item-' || n FROM generate_series(%s, %s) AS n",
                params=(first, last),
            )
            time.sleep(0.05)

    thread = threading.Thread(target=write, daemon=True)
    yield thread
    done.set()
    thread.join(60)


def worker(directory: Path) -> ConveyorProcess:
    props = {
        "data.dir": str(directory / "data"),
        "listeners": "http://127.0.0.1:0",
        "exactly.once.source.support": "enabled",
        "offset.flush.interval.ms": "200",
        "task.shutdown.graceful.timeout.ms": "5000",
    }
    return start_standalone(directory, props, STARTUP_S)


def items(directory: Path) -> list[str]:
    with open_log(f"embedded:{directory / 'data' / 'log'}") as log:
        return [json.loads(value)["item"] for value in read_values(log, TOPIC) if value is not None]


def test_exactly_once_survives_kill_9_of_the_worker_with_each_row_once_in_order(
    tmp_path: Path, database: PostgresAddress, writer: threading.Thread
) -> None:
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": f"jdbc:postgresql://{database.host}:{database.port}/{database.dbname}",
        "connection.user": str(database.user),
        "connection.password": str(database.password),
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "table.whitelist": "orders",
        "topic.prefix": "eos-",
        "batch.max.rows": "50",
        "poll.interval.ms": "50",
        "exactly.once.support": "required",
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "false",
    }
    first = worker(tmp_path)
    try:
        with first.client() as client:
            response = client.put("/connectors/eos/config", json=config)
            assert response.status_code == 201, response.text
            wait_for_states(client, "eos", "RUNNING", ["RUNNING"], STARTUP_S)
        writer.start()
        wait_until(lambda: len(items(tmp_path)) >= KILL_AFTER, "rows before the kill", DONE_WITHIN_S)
        assert len(items(tmp_path)) < ROWS, "the kill came after the last row"
        first.kill()
    finally:
        first.stop()
    with running_worker(tmp_path / "data", **exactly_once(True)):
        wait_until(
            lambda: len(items(tmp_path)) >= ROWS, f"all {ROWS} rows in {TOPIC}", DONE_WITHIN_S, every_s=1.0
        )
        time.sleep(SETTLE_S)
        copied = items(tmp_path)
    assert copied == [f"item-{n}" for n in range(1, ROWS + 1)]
