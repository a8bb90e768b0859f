"""The snapshot reads ahead: while the runtime writes and commits the batch ``poll`` returned, the task
already reads PostgreSQL's next pages and builds the next batch; the records still come in key order, each
once, and an error reading them still fails the ``poll`` that reaches it."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config, task_run
from tests.connectors.postgres.databases import execute, fresh_database, query
from tests.waiting import wait_until

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.snapshot_prefetch import Prefetched, SnapshotStopped
from conveyor.postgres_server import PostgresServer

ROWS = 100
PAGE = 10
WAIT_S = 60.0


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "prefetch") as target:
        execute(
            target,
            "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)",
            f"INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1, {ROWS}) AS n",
        )
        yield target


def snapshot_queries(target: PostgresAddress) -> list[str]:
    """What the snapshot's sessions on ``target``'s database ran last."""
    rows = query(
        target,
        "SELECT query FROM pg_stat_activity WHERE application_name = 'conveyor-snapshot' AND datname = %s",
        (target.dbname,),
    )
    return [row[0] for row in rows]


def test_the_snapshot_reads_the_next_pages_before_the_next_poll(database: PostgresAddress) -> None:
    config = cdc_config(
        database,
        "prefetch",
        **{"slot.name": f"slot_{uuid.uuid4().hex[:8]}", "snapshot.mode": "initial_only"},
        **{"snapshot.fetch.size": str(PAGE), "max.batch.size": str(PAGE)},
    )
    with task_run(config, json_unchanged=True) as run:
        run.poll_until(lambda records: len(records) >= PAGE, "the first batch")
        wait_until(
            lambda: any("> ROW('30')" in text for text in snapshot_queries(database)),
            "the page after row 30 read while the first batch is being written",
            WAIT_S,
        )
        records = run.poll_until(lambda records: len(records) >= ROWS, "every row")
    assert [record.key.data for record in records] == [
        f'{{"schema":{{"type":"struct","fields":[{{"type":"int32","optional":false,"field":"id"}}],'
        f'"optional":false,"name":"prefetch.public.items.Key"}},"payload":{{"id":{n}}}}}'.encode()
        for n in range(1, ROWS + 1)
    ]


def test_items_come_in_order_and_the_source_s_error_is_raised_where_it_happened() -> None:
    def source() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("page 3 unreadable")

    prefetched = Prefetched(source(), "test-reader")
    assert [next(prefetched), next(prefetched)] == [1, 2]
    with pytest.raises(ValueError, match="page 3 unreadable"):
        next(prefetched)


def test_closing_stops_reading_and_closes_the_source() -> None:
    closed = threading.Event()

    def source() -> Iterator[int]:
        try:
            n = 0
            while True:
                n += 1
                yield n
        finally:
            closed.set()

    prefetched = Prefetched(source(), "test-reader")
    assert next(prefetched) == 1
    prefetched.close()
    assert closed.wait(WAIT_S)
    with pytest.raises(SnapshotStopped):
        next(prefetched)
