"""The JDBC sink's writer thread: ``put_columns`` returns while its batch commits, so that the loop converts
the next one meanwhile, and exactly once still holds: ``pre_commit`` reports only committed offsets, a
revocation waits for the commit in flight, a failed transaction fails the task. The transaction in flight
is held by a lock another connection takes on the table, on a real PostgreSQL database."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg2
import psycopg2.extensions
import pytest
from jdbc_sink_support import create_database, ids, query, sink_config, started_task, unique_table

from conveyor.api import ConnectError, TopicPartition
from conveyor.data import INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, SchemaBuilder, SinkColumns, Struct
from conveyor.postgres_server import PostgresServer

SCHEMA = SchemaBuilder.struct().field("id", INT64_SCHEMA).field("name", OPTIONAL_STRING_SCHEMA).build()
BOUND_S = 60.0
"""How long a call that must not wait for the held transaction is given (it returns at once)."""


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def topic() -> str:
    return unique_table("w")


def batch(topic: str, start: int, count: int) -> SinkColumns:
    """Records at offsets ``start..start+count-1`` whose ids are their offsets."""
    offsets = list(range(start, start + count))
    values = [Struct(SCHEMA).put("id", n).put("name", "ok") for n in offsets]
    none: list[Any] = [None] * count
    return SinkColumns(topic, 0, offsets, none, none, [SCHEMA] * count, values, none, start + count)


def create_table(server: PostgresServer, database: str, topic: str) -> None:
    connection = psycopg2.connect(server.dsn(database))
    with connection, connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {topic} (id bigint, name varchar(3))")
    connection.close()


@contextmanager
def held(server: PostgresServer, database: str, table: str) -> Iterator[psycopg2.extensions.cursor]:
    """A transaction of another connection holding a lock on ``table`` that the sink's writes wait for (reads
    do not); rolled back on the way out unless the caller commits it."""
    connection = psycopg2.connect(server.dsn(database))
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")
            yield cursor
    finally:
        connection.rollback()
        connection.close()


def returns(call: Callable[[], Any]) -> threading.Thread:
    """``call`` running on a thread of its own, to join with a bound."""
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def returned(thread: threading.Thread) -> bool:
    thread.join(BOUND_S)
    return not thread.is_alive()


def next_offset(server: PostgresServer, database: str, topic: str) -> int:
    rows = query(server, database, "SELECT next_offset FROM conveyor_sink_offsets WHERE topic = %s", topic)
    return int(rows[0][0])


def test_put_returns_while_the_transaction_of_its_batch_is_still_committing(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    create_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    with started_task(sink_config(postgres, database), [partition]) as (task, _):
        task.put_columns(batch(topic, 0, 10))
        assert task.pre_commit({partition: 10}) == {partition: 10}
        with held(postgres, database, topic):
            handed_on = returned(returns(lambda: task.put_columns(batch(topic, 10, 10))))
            waiting = (ids(postgres, database, topic), next_offset(postgres, database, topic))
        assert handed_on and waiting == (list(range(10)), 10)
        assert task.pre_commit({partition: 20}) == {partition: 20}
    assert ids(postgres, database, topic) == list(range(20))


def test_pre_commit_reports_the_offset_of_a_batch_in_flight_only_once_it_has_committed(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    create_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    reported: list[dict[TopicPartition, int]] = []
    with started_task(sink_config(postgres, database), [partition]) as (task, _):
        task.put_columns(batch(topic, 0, 10))
        assert task.pre_commit({partition: 10}) == {partition: 10}
        with held(postgres, database, topic) as lock:
            task.put_columns(batch(topic, 10, 10))
            committing = returns(lambda: reported.append(task.pre_commit({partition: 20})))
            lock.connection.commit()
            assert returned(committing)
        in_database = (ids(postgres, database, topic), next_offset(postgres, database, topic))
    assert reported == [{partition: 20}] and in_database == (list(range(20)), 20)


def test_a_revocation_while_a_batch_commits_waits_for_it_and_the_next_owner_resumes_after_it(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    create_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database)
    with started_task(config, [partition]) as (task, _):
        task.put_columns(batch(topic, 0, 10))
        assert task.pre_commit({partition: 10}) == {partition: 10}
        with held(postgres, database, topic) as lock:
            task.put_columns(batch(topic, 10, 10))
            closing = returns(lambda: task.close([partition]))
            lock.connection.commit()
            assert returned(closing)
        with started_task(config, [partition]) as (successor, context):
            resumed = context.offsets[partition]
            successor.put_columns(batch(topic, 20, 10))
            assert successor.pre_commit({partition: 30}) == {partition: 30}
    assert resumed == 20
    assert ids(postgres, database, topic) == list(range(30))


def test_a_database_error_in_the_transaction_in_flight_fails_pre_commit_and_put_with_its_message(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    create_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    with started_task(sink_config(postgres, database), [partition]) as (task, _):
        task.put_columns(batch(topic, 0, 10))
        assert task.pre_commit({partition: 10}) == {partition: 10}
        with held(postgres, database, topic) as lock:
            lock.execute(f"LOCK TABLE {topic} IN ACCESS EXCLUSIVE MODE")
            task.put_columns(batch(topic, 10, 10))
            lock.execute(f"ALTER TABLE {topic} RENAME TO {topic}_moved")
            lock.connection.commit()
        failure = rf'{topic}-0@10 to @19 into table {topic} failed: relation "{topic}" does not exist'
        with pytest.raises(ConnectError, match=failure):
            task.pre_commit({partition: 20})
        with pytest.raises(ConnectError, match=failure):
            task.put_columns(batch(topic, 20, 10))
    assert ids(postgres, database, f"{topic}_moved") == list(range(10))
    assert next_offset(postgres, database, topic) == 10
