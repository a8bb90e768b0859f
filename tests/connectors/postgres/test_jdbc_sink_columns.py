"""The JDBC sink given batches as columns (``put_columns``, as the sink's loop calls it without
transforms) writes what ``put`` of the same records writes, on a real PostgreSQL database."""

from __future__ import annotations

import math
from typing import Any

import pytest
from jdbc_sink_support import (
    create_database,
    execute,
    ids,
    query,
    sink_config,
    started_task,
    unique_table,
)

from conveyor.api import ConnectError, TopicPartition
from conveyor.connectors.postgres.sink_offsets import FencedError
from conveyor.data import (
    FLOAT64_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    SchemaBuilder,
    SinkColumns,
    Struct,
)
from conveyor.postgres_server import PostgresServer

SCHEMA = (
    SchemaBuilder.struct()
    .field("id", INT64_SCHEMA)
    .field("name", OPTIONAL_STRING_SCHEMA)
    .field("amount", FLOAT64_SCHEMA)
    .field("active", OPTIONAL_BOOLEAN_SCHEMA)
    .field("rank", SchemaBuilder.int32().optional().default_value(5).build())
    .field("age", OPTIONAL_INT32_SCHEMA)
    .build()
)


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def topic() -> str:
    return unique_table("c")


def value(id_: int, name: str | None = "x", amount: float = 1.5, **others: Any) -> Struct:
    struct = Struct(SCHEMA).put("id", id_).put("name", name).put("amount", amount)
    for field, given in others.items():
        struct.put(field, given)
    return struct


def columns(topic: str, values: list[Struct], start: int = 0) -> SinkColumns:
    count = len(values)
    offsets = list(range(start, start + count))
    return SinkColumns(
        topic,
        0,
        offsets,
        [None] * count,
        [None] * count,
        [SCHEMA] * count,
        values,
        [None] * count,
        start + count,
    )


def rows(server: PostgresServer, database: str, table: str) -> list[tuple[Any, ...]]:
    return query(server, database, f"SELECT id, name, amount, active, rank, age FROM {table} ORDER BY id")


def test_a_batch_of_columns_writes_its_rows_and_their_offsets_in_one_transaction(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    partition = TopicPartition(topic, 0)
    with started_task(config, [partition]) as (task, _):
        task.put_columns(columns(topic, [value(n) for n in range(100)]))
        committed = task.pre_commit({partition: 100})
    assert ids(postgres, database, topic) == list(range(100))
    assert committed == {partition: 100}


def test_a_zombie_task_s_batch_of_columns_writes_nothing_and_fails_its_next_put_as_fenced(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    partition = TopicPartition(topic, 0)
    with started_task(config, [partition]) as (zombie, _):
        zombie.put_columns(columns(topic, [value(n) for n in range(10)]))
        assert zombie.pre_commit({partition: 10}) == {partition: 10}
        with started_task(config, [partition]) as (successor, _):
            zombie.put_columns(columns(topic, [value(n) for n in range(10, 20)], start=10))
            with pytest.raises(FencedError, match=rf"fenced off {topic}-0"):
                zombie.put_columns(columns(topic, [value(n) for n in range(20, 30)], start=20))
            successor.put_columns(columns(topic, [value(n) for n in range(10, 20)], start=10))
            committed = successor.pre_commit({partition: 20})
    assert ids(postgres, database, topic) == list(range(20))
    assert committed == {partition: 20}


def test_a_connector_name_with_quotes_and_dollars_commits_its_offsets_with_its_rows(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = {
        **sink_config(postgres, database, auto_create="true", pk_mode="none"),
        "name": "it's $$ a \\ $x$ name",
    }
    partition = TopicPartition(topic, 0)
    with started_task(config, [partition]) as (task, _):
        task.put_columns(columns(topic, [value(n) for n in range(10)]))
        committed = task.pre_commit({partition: 10})
    with started_task(config, [partition]) as (_, context):
        resumed = context.offsets[partition]
    assert ids(postgres, database, topic) == list(range(10))
    assert committed == {partition: 10} and resumed == 10


def test_values_that_need_escaping_or_defaults_read_back_as_written(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    written = [
        value(0, "tab\there", 0.1, active=True, rank=1, age=30),
        value(1, "new\nline \\ back\rslash", math.inf, active=False),
        value(2, None, -0.0, age=None),
        value(3, "plain", math.nan),
    ]
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put_columns(columns(topic, written))
    read = rows(postgres, database, topic)
    assert read[:3] == [
        (0, "tab\there", 0.1, True, 1, 30),
        (1, "new\nline \\ back\rslash", math.inf, False, 5, None),
        (2, None, -0.0, None, 5, None),
    ]
    assert read[3][:2] == (3, "plain") and math.isnan(read[3][2])


def test_a_batch_of_columns_already_in_the_database_is_not_written_again(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    partition = TopicPartition(topic, 0)
    with started_task(config, [partition]) as (task, _):
        task.put_columns(columns(topic, [value(n) for n in range(10)]))
    with started_task(config, [partition]) as (task, _):
        task.put_columns(columns(topic, [value(n) for n in range(5, 15)], start=5))
    assert ids(postgres, database, topic) == list(range(15))


def test_upsert_of_columns_keeps_the_last_row_of_each_key(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(
        postgres, database, auto_create="true", insert_mode="upsert", pk_mode="record_value", pk_fields="id"
    )
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put_columns(columns(topic, [value(1, "a"), value(2, "b"), value(1, "c")]))
        task.put_columns(columns(topic, [value(2, "d")], start=3))
    assert [row[:2] for row in rows(postgres, database, topic)] == [(1, "c"), (2, "d")]


def refusing_table(server: PostgresServer, database: str, topic: str) -> None:
    """A table whose name column takes three characters at most."""
    execute(
        server,
        database,
        f"CREATE TABLE {topic} (id bigint, name varchar(3), amount float8, active boolean, rank int, "
        "age int)",
    )


def test_a_row_the_table_refuses_fails_the_next_put_naming_its_column_and_offset(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    refusing_table(postgres, database, topic)
    config = sink_config(postgres, database, pk_mode="none")
    refused = columns(topic, [value(0, "ok"), value(1, "too long"), value(2, "ok")])
    following = columns(topic, [value(3, "ok")], start=3)
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put_columns(refused)
        with pytest.raises(ConnectError, match=rf"{topic}-0@1 does not fit table .*column name"):
            task.put_columns(following)
    assert ids(postgres, database, topic) == []


def test_a_row_the_table_refuses_fails_pre_commit_and_the_next_put(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    refusing_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, pk_mode="none")
    with started_task(config, [partition]) as (task, _):
        task.put_columns(columns(topic, [value(0, "ok"), value(1, "too long")]))
        with pytest.raises(ConnectError, match=rf"{topic}-0@1 does not fit table"):
            task.pre_commit({partition: 2})
        with pytest.raises(ConnectError, match=rf"{topic}-0@1 does not fit table"):
            task.put_columns(columns(topic, [value(2, "ok")], start=2))
    assert ids(postgres, database, topic) == []


def test_with_errors_tolerated_a_refused_row_is_reported_and_the_rest_written_by_pre_commit(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    refusing_table(postgres, database, topic)
    partition = TopicPartition(topic, 0)
    config = sink_config(postgres, database, pk_mode="none", errors_tolerance="all")
    with started_task(config, [partition]) as (task, context):
        task.put_columns(columns(topic, [value(0, "ok"), value(1, "too long"), value(2, "ok")]))
        committed = task.pre_commit({partition: 3})
    assert ids(postgres, database, topic) == [0, 2]
    assert [record.kafka_offset for record, _ in context.reporter.reported] == [1]
    assert committed == {partition: 3}
