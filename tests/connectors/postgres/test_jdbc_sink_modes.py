"""The JDBC sink's write modes, keys, deletes and table management, on a real PostgreSQL database."""

from __future__ import annotations

import pytest
from jdbc_sink_support import (
    ROW_SCHEMA,
    create_database,
    execute,
    ids,
    query,
    record,
    row,
    rows_of,
    sink_config,
    started_task,
    unique_table,
)

from conveyor.api import ConnectError, TopicPartition
from conveyor.connectors.postgres.sink_tables import TableSchemaError
from conveyor.data import INT64_SCHEMA, OPTIONAL_INT64_SCHEMA, SchemaBuilder, Struct
from conveyor.postgres_server import PostgresServer

TP = TopicPartition("orders", 0)


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.fixture
def topic(request: pytest.FixtureRequest) -> str:
    """A topic (and so a table) of the test's own."""
    return unique_table("t")


def test_insert_mode_copies_every_record_into_an_auto_created_table(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put(rows_of(topic, 50))
    assert ids(postgres, database, topic) == list(range(50))


def test_insert_mode_without_a_key_writes_duplicate_values_as_rows_of_their_own(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")
    same = [record(topic, offset, row(7, "same")) for offset in range(3)]
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put(same)
    assert ids(postgres, database, topic) == [7, 7, 7]


def test_upsert_keeps_the_last_value_of_each_key_within_and_across_batches(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(
        postgres, database, auto_create="true", insert_mode="upsert", pk_mode="record_value", pk_fields="id"
    )
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put(
            [record(topic, 0, row(1, "a")), record(topic, 1, row(2, "b")), record(topic, 2, row(1, "c"))]
        )
        task.put([record(topic, 5, row(2, "d"))])
    assert query(postgres, database, f'SELECT id, name FROM "{topic}" ORDER BY id') == [(1, "c"), (2, "d")]


def test_auto_create_makes_the_record_key_the_primary_key(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(
        postgres, database, auto_create="true", insert_mode="upsert", pk_mode="record_key", pk_fields="key_id"
    )
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, row(1), key=10, key_schema=INT64_SCHEMA)])
    keys = query(
        postgres,
        database,
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
        "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary",
        f'"{topic}"',
    )
    assert keys == [("key_id",)]


def test_update_mode_changes_existing_rows_and_inserts_none(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    execute(postgres, database, f'CREATE TABLE "{topic}" (id bigint PRIMARY KEY, name text)')
    execute(postgres, database, f"INSERT INTO \"{topic}\" VALUES (1, 'old')")
    config = sink_config(postgres, database, insert_mode="update", pk_mode="record_value", pk_fields="id")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, row(1, "new")), record(topic, 1, row(2, "absent"))])
    assert query(postgres, database, f'SELECT id, name FROM "{topic}"') == [(1, "new")]


def test_a_tombstone_deletes_the_row_of_its_key_in_order_with_the_writes(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(
        postgres,
        database,
        auto_create="true",
        insert_mode="upsert",
        pk_mode="record_key",
        pk_fields="id",
        delete_enabled="true",
    )
    key_schema = SchemaBuilder.struct().field("id", INT64_SCHEMA).build()

    def key(id_: int) -> Struct:
        return Struct(key_schema).put("id", id_)

    value_schema = SchemaBuilder.struct().field("name", SchemaBuilder.string().optional().build()).build()
    batch = [
        record(topic, 0, Struct(value_schema).put("name", "a"), key=key(1), key_schema=key_schema),
        record(topic, 1, Struct(value_schema).put("name", "b"), key=key(2), key_schema=key_schema),
        record(topic, 2, None, key=key(1), key_schema=key_schema),
        record(topic, 3, None, key=key(2), key_schema=key_schema),
        record(topic, 4, Struct(value_schema).put("name", "again"), key=key(2), key_schema=key_schema),
    ]
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put(batch)
    assert query(postgres, database, f'SELECT id, name FROM "{topic}"') == [(2, "again")]


def test_kafka_pk_mode_writes_the_coordinates_of_each_record(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", pk_mode="kafka")
    with started_task(config, [TopicPartition(topic, 3)]) as (task, _):
        task.put([record(topic, 41, row(1), partition=3)])
    columns = "__connect_topic, __connect_partition, __connect_offset, id"
    assert query(postgres, database, f'SELECT {columns} FROM "{topic}"') == [(topic, 3, 41, 1)]


def test_fields_whitelist_writes_only_the_listed_value_fields(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true", fields_whitelist="id")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, row(5, "dropped"))])
    names = query(
        postgres, database, "SELECT column_name FROM information_schema.columns WHERE table_name = %s", topic
    )
    assert names == [("id",)]


def test_table_name_format_names_the_table_after_the_topic(postgres: PostgresServer, database: str) -> None:
    config = sink_config(postgres, database, auto_create="true", table_name_format="kafka_${topic}")
    with started_task(config, [TopicPartition("fmt", 0)]) as (task, _):
        task.put([record("fmt", 0, row(1))])
    assert ids(postgres, database, "kafka_fmt") == [1]


def test_auto_evolve_adds_a_new_optional_field_as_a_nullable_column(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    wider = (
        SchemaBuilder.struct()
        .field("id", INT64_SCHEMA)
        .field("name", SchemaBuilder.string().optional().build())
        .field("extra", OPTIONAL_INT64_SCHEMA)
        .build()
    )
    config = sink_config(postgres, database, auto_create="true", auto_evolve="true")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, row(1))])
        task.put([record(topic, 1, Struct(wider).put("id", 2).put("extra", 9))])
    assert query(postgres, database, f'SELECT id, extra FROM "{topic}" ORDER BY id') == [(1, None), (2, 9)]


def test_a_missing_table_without_auto_create_fails_naming_the_table_and_the_fix(
    postgres: PostgresServer, database: str
) -> None:
    config = sink_config(postgres, database)
    with (
        started_task(config, [TopicPartition("nowhere", 0)]) as (task, _),
        pytest.raises(TableSchemaError, match=r"Table nowhere is missing.*set auto\.create=true"),
    ):
        task.put([record("nowhere", 0, row(1))])


def test_a_missing_column_without_auto_evolve_fails_naming_it(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    execute(postgres, database, f'CREATE TABLE "{topic}" (id bigint)')
    config = sink_config(postgres, database)
    with (
        started_task(config, [TopicPartition(topic, 0)]) as (task, _),
        pytest.raises(TableSchemaError, match=r"missing column\(s\) name.*auto\.evolve=true"),
    ):
        task.put([record(topic, 0, row(1))])


def test_a_record_without_a_value_schema_fails_saying_which_converter_to_use(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    config = sink_config(postgres, database, auto_create="true")
    with (
        started_task(config, [TopicPartition(topic, 0)]) as (task, _),
        pytest.raises(ConnectError, match=r"struct schema.*@0.*schemas\.enable=true"),
    ):
        task.put([record(topic, 0, {"id": 1})])


def test_records_of_two_topics_go_to_their_own_tables(postgres: PostgresServer, database: str) -> None:
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [TopicPartition("left", 0), TopicPartition("right", 0)]) as (task, _):
        task.put([record("left", 0, row(1, schema=ROW_SCHEMA))])
        task.put([record("right", 0, row(2, schema=ROW_SCHEMA))])
    assert (ids(postgres, database, "left"), ids(postgres, database, "right")) == ([1], [2])


def test_dots_of_a_topic_name_become_underscores_and_a_dot_of_the_format_names_a_schema(
    postgres: PostgresServer, database: str
) -> None:
    execute(postgres, database, "CREATE SCHEMA IF NOT EXISTS staging")
    config = sink_config(postgres, database, auto_create="true", table_name_format="staging.${topic}")
    with started_task(config, [TopicPartition("db.inventory.items", 0)]) as (task, _):
        task.put([record("db.inventory.items", 0, row(1))])
    assert query(postgres, database, "SELECT id FROM staging.db_inventory_items") == [(1,)]


def test_upsert_into_a_table_without_a_key_on_the_pk_fields_fails_saying_what_to_add(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    execute(postgres, database, f'CREATE TABLE "{topic}" (id bigint, name text)')
    config = sink_config(postgres, database, insert_mode="upsert", pk_mode="record_value", pk_fields="id")
    expected = rf"Table {topic} has no primary key or unique index on \(id\)"
    with (
        started_task(config, [TopicPartition(topic, 0)]) as (task, _),
        pytest.raises(TableSchemaError, match=expected),
    ):
        task.put([record(topic, 0, row(1))])


def test_upsert_finds_rows_by_a_unique_index_as_well_as_a_primary_key(
    postgres: PostgresServer, database: str, topic: str
) -> None:
    execute(postgres, database, f'CREATE TABLE "{topic}" (id bigint UNIQUE, name text)')
    config = sink_config(postgres, database, insert_mode="upsert", pk_mode="record_value", pk_fields="id")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, row(1, "a")), record(topic, 1, row(1, "b"))])
    assert query(postgres, database, f'SELECT id, name FROM "{topic}"') == [(1, "b")]
