"""Records that do not fit their columns, and a wrong password: what fails, what is skipped, what it says."""

from __future__ import annotations

import pytest
from jdbc_sink_support import (
    create_database,
    execute,
    ids,
    record,
    row,
    rows_of,
    sink_config,
    started_task,
    unique_table,
)

from conveyor.api import ConnectError, TopicPartition
from conveyor.connectors.postgres.connection import PostgresConnectionError
from conveyor.data import INT64_SCHEMA, STRING_SCHEMA, SchemaBuilder, SinkRecord, Struct
from conveyor.postgres_server import PostgresServer

TEXT_ID = SchemaBuilder.struct().field("id", STRING_SCHEMA).build()


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def topic(request: pytest.FixtureRequest, postgres: PostgresServer, database: str) -> str:
    """A table of the test's own: a bigint key, a NOT NULL short name."""
    name = unique_table("b")
    execute(postgres, database, f'CREATE TABLE "{name}" (id bigint, name varchar(5) NOT NULL)')
    return name


def bad_records(topic: str) -> dict[str, SinkRecord]:
    return {
        "type": record(topic, 3, Struct(TEXT_ID).put("id", "three")),
        "null": record(topic, 3, row(3, None)),
        "too long": record(topic, 3, row(3, "far too long")),
    }


BAD_COLUMN = {"type": "id", "null": "name", "too long": "name"}


@pytest.mark.parametrize("kind", ["type", "null", "too long"])
def test_a_record_that_does_not_fit_fails_the_task_naming_table_column_and_offset(
    postgres: PostgresServer, database: str, topic: str, kind: str
) -> None:
    batch = [*rows_of(topic, 3), bad_records(topic)[kind], *rows_of(topic, 3, start=4)]
    expected = rf"{topic}-0@3 does not fit table {topic}, column {BAD_COLUMN[kind]}"
    config = sink_config(postgres, database)
    with (
        started_task(config, [TopicPartition(topic, 0)]) as (task, _),
        pytest.raises(ConnectError, match=expected),
    ):
        task.put(batch)
    assert ids(postgres, database, topic) == []


@pytest.mark.parametrize("kind", ["type", "null", "too long"])
def test_with_errors_tolerated_the_bad_record_is_reported_and_the_rest_written(
    postgres: PostgresServer, database: str, topic: str, kind: str
) -> None:
    config = sink_config(postgres, database, errors_tolerance="all")
    bad = bad_records(topic)[kind]
    batch = [*rows_of(topic, 3), bad, *rows_of(topic, 3, start=4)]
    with started_task(config, [TopicPartition(topic, 0)]) as (task, context):
        task.put(batch)
        assert task.pre_commit({TopicPartition(topic, 0): 7}) == {TopicPartition(topic, 0): 7}
    assert ids(postgres, database, topic) == [0, 1, 2, 4, 5, 6]
    assert [(r.kafka_offset, BAD_COLUMN[kind] in str(e)) for r, e in context.reporter.reported] == [(3, True)]


def test_a_duplicate_key_in_insert_mode_is_a_bad_record(postgres: PostgresServer, database: str) -> None:
    execute(postgres, database, "CREATE TABLE keyed (id bigint PRIMARY KEY, name text)")
    config = sink_config(postgres, database, pk_mode="record_value", pk_fields="id", errors_tolerance="all")
    with started_task(config, [TopicPartition("keyed", 0)]) as (task, context):
        task.put([record("keyed", 0, row(1)), record("keyed", 1, row(1)), record("keyed", 2, row(2))])
    assert ids(postgres, database, "keyed") == [1, 2]
    assert [r.kafka_offset for r, _ in context.reporter.reported] == [1]


def test_a_wrong_password_fails_the_task_at_start_saying_what_to_check(
    postgres: PostgresServer, database: str
) -> None:
    config = sink_config(postgres, database, connection_password="wrong")
    with (
        pytest.raises(PostgresConnectionError, match=r"password authentication failed.*Check the host, port"),
        started_task(config),
    ):
        pass


def test_a_primitive_key_needs_one_pk_field_named(postgres: PostgresServer, database: str) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="record_key")
    with (
        started_task(config, [TopicPartition("prim", 0)]) as (task, _),
        pytest.raises(ConnectError, match=r"Need exactly one PK column.*set pk\.fields"),
    ):
        task.put([record("prim", 0, row(1), key=1, key_schema=INT64_SCHEMA)])
