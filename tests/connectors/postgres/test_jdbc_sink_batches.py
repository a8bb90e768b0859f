"""A JDBC sink task's transactions hold up to `batch.size` rows: the task asks its consumer for polls of
`batch.size` records (`SinkTask.max_poll_records`), unless `consumer.override.max.poll.records` says
otherwise. A transaction's rows share its id (`xmin`), which is how the tests count them."""

from __future__ import annotations

import json

import pytest
from jdbc_sink_support import create_database, query, sink_config
from tests.runtime.support import running, task_spec, wait_until, worker_props
from tests.worker.support import JSON_CONVERTER, STRING_CONVERTER, unique

from conveyor.connectors.postgres.jdbc_sink import JdbcSinkTask
from conveyor.log import Log
from conveyor.postgres_server import PostgresServer
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop

RECORDS = 4_000
VALUE_SCHEMA = {
    "type": "struct",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "name", "type": "string", "optional": True},
    ],
}


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


def rows_in(postgres: PostgresServer, database: str, table: str) -> int:
    """The rows of ``table``, 0 before the task has created it."""
    if query(postgres, database, "SELECT to_regclass(%s)", f'"{table}"')[0][0] is None:
        return 0
    count: int = query(postgres, database, f'SELECT count(*) FROM "{table}"')[0][0]
    return count


def transaction_sizes(log: Log, postgres: PostgresServer, database: str, **settings: str) -> list[int]:
    """The rows of each transaction that wrote a topic's records, written before the task starts."""
    topic = unique("rows")
    log.admin().create_topic(topic, partitions=1)
    with log.producer() as producer:
        values = [
            json.dumps({"schema": VALUE_SCHEMA, "payload": {"id": n, "name": f"n{n}"}}).encode()
            for n in range(RECORDS)
        ]
        producer.send_batch(topic, values, partition=0)
    config = {
        **sink_config(postgres, database, auto_create="true"),
        "topics": topic,
        "key.converter": STRING_CONVERTER,
        "value.converter": JSON_CONVERTER,
        **settings,
    }
    control = LocalTaskControl()
    spec = task_spec(config, worker_props(log.url), kind="sink")
    with running(SinkTaskLoop(spec, control, log, JdbcSinkTask()), control):
        wait_until(
            lambda: rows_in(postgres, database, topic) == RECORDS, "every record in the table", timeout_s=120
        )
    rows = query(postgres, database, f'SELECT count(*) FROM "{topic}" GROUP BY xmin::text')
    return [count for (count,) in rows]


def test_a_transaction_holds_the_default_batch_size_of_3000_rows_when_records_are_there(
    log: Log, postgres: PostgresServer, database: str
) -> None:
    sizes = transaction_sizes(log, postgres, database)
    assert max(sizes) > 500
    assert max(sizes) <= 3000


def test_a_transaction_holds_up_to_the_batch_size_set(
    log: Log, postgres: PostgresServer, database: str
) -> None:
    sizes = transaction_sizes(log, postgres, database, **{"batch.size": "1000"})
    assert max(sizes) > 500
    assert max(sizes) <= 1000


def test_the_consumer_override_of_max_poll_records_still_bounds_a_transaction(
    log: Log, postgres: PostgresServer, database: str
) -> None:
    sizes = transaction_sizes(
        log, postgres, database, **{"batch.size": "3000", "consumer.override.max.poll.records": "200"}
    )
    assert max(sizes) <= 200
