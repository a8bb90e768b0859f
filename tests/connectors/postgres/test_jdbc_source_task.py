"""The JDBC source task reads a real PostgreSQL table in each of Confluent's modes, with its offsets."""

from __future__ import annotations

import datetime as dt
import decimal
import time
from collections.abc import Iterator

import pytest
from tests.connectors.connector_contexts import DictOffsetStorageReader
from tests.connectors.postgres.databases import execute, fresh_database
from tests.connectors.postgres.jdbc_support import commit_last, drain, jdbc_config, started_task, values

from conveyor.api import ConnectError, RetriableError
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.jdbc_source import JdbcSourceTask
from conveyor.data import Decimal, Schema, SourceRecord, Timestamp, Type
from conveyor.postgres_server import PostgresServer

WAIT_POLLS = 1200


@pytest.fixture
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jdbctask") as target:
        execute(
            target,
            "CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL, "
            "updated timestamp NOT NULL DEFAULT now())",
        )
        yield target


def wait_for_rows(task: JdbcSourceTask) -> list[SourceRecord]:
    """The first records the task returns, polled for a bounded time."""
    for _ in range(WAIT_POLLS):
        records = task.poll()
        if records:
            return records
        time.sleep(0.05)
    raise AssertionError(f"no records after {WAIT_POLLS} polls")


def insert(target: PostgresAddress, *items: str) -> None:
    for item in items:
        execute(target, "INSERT INTO orders (item) VALUES (%s)", params=(item,))


def test_incrementing_mode_returns_only_rows_added_since_the_last_poll(database: PostgresAddress) -> None:
    insert(database, "a", "b")
    task = started_task(jdbc_config(database, mode="incrementing", **{"incrementing.column.name": "id"}))

    first = drain(task)
    insert(database, "c")
    second = drain(task)
    execute(database, "UPDATE orders SET item = 'a2' WHERE id = 1")
    third = drain(task)

    assert values(first, "item") == ["a", "b"]
    assert values(second, "item") == ["c"]
    assert third == []


def test_records_carry_confluents_partition_and_offset_topic_and_no_key(database: PostgresAddress) -> None:
    insert(database, "a", "b")
    config = jdbc_config(
        database, mode="incrementing", **{"incrementing.column.name": "id", "topic.prefix": "pg-"}
    )

    records = drain(started_task(config))

    assert [r.source_partition for r in records] == [{"protocol": "1", "table": "public.orders"}] * 2
    assert [r.source_offset for r in records] == [{"incrementing": 1}, {"incrementing": 2}]
    assert {r.topic for r in records} == {"pg-orders"}
    assert [(r.key_schema, r.key) for r in records] == [(None, None)] * 2
    schema = records[0].value_schema
    assert schema is not None and schema.name == "orders"
    assert [(f.name, f.schema.type, f.schema.optional) for f in schema.fields] == [
        ("id", Type.INT32, False),
        ("item", Type.STRING, False),
        ("updated", Type.INT64, False),
    ]


def test_an_empty_incrementing_column_name_finds_the_serial_column(database: PostgresAddress) -> None:
    insert(database, "a")
    records = drain(started_task(jdbc_config(database, mode="incrementing")))
    assert [r.source_offset for r in records] == [{"incrementing": 1}]


def test_a_poll_returns_at_most_batch_max_rows(database: PostgresAddress) -> None:
    insert(database, *"abcde")
    task = started_task(jdbc_config(database, mode="incrementing", **{"batch.max.rows": "2"}))
    batches = [values(task.poll() or [], "item") for _ in range(3)]
    assert batches == [["a", "b"], ["c", "d"], ["e"]]


def test_a_restarted_task_resumes_after_the_committed_offset(database: PostgresAddress) -> None:
    insert(database, "a", "b")
    config = jdbc_config(database, mode="incrementing")
    offsets = DictOffsetStorageReader()
    commit_last(offsets, drain(started_task(config, offsets)))
    insert(database, "c")

    assert values(drain(started_task(config, offsets)), "item") == ["c"]


@pytest.mark.parametrize(
    "partition",
    [{"table": "orders"}, {"protocol": "1", "table": "{db}.public.orders"}],
    ids=["protocol 0", "with the database"],
)
def test_offsets_confluent_wrote_under_its_other_table_names_are_resumed_from(
    database: PostgresAddress, partition: dict[str, str]
) -> None:
    insert(database, "a", "b", "c")
    offsets = DictOffsetStorageReader()
    offsets.commit({k: v.format(db=database.dbname) for k, v in partition.items()}, {"incrementing": 2})

    records = drain(started_task(jdbc_config(database, mode="incrementing"), offsets))

    assert values(records, "item") == ["c"]
    assert records[0].source_partition == {"protocol": "1", "table": "public.orders"}


def test_timestamp_mode_returns_rows_again_when_their_timestamp_moves(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('a', '2024-01-01 10:00:00.123456')")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('b', '2024-01-01 11:00:00')")
    task = started_task(jdbc_config(database, mode="timestamp", **{"timestamp.column.name": "updated"}))

    first = drain(task)
    execute(database, "UPDATE orders SET item = 'a2', updated = '2024-01-02 00:00:00' WHERE item = 'a'")
    second = drain(task)

    assert values(first, "item") == ["a", "b"]
    assert values(second, "item") == ["a2"]
    stamp = dt.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=dt.UTC)
    millis = int(stamp.timestamp() * 1000)
    assert first[0].source_offset == {"timestamp": millis, "timestamp_nanos": 123456000}
    assert first[0].value.get("updated") == stamp


def test_timestamp_offsets_resume_to_the_microsecond(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('a', '2024-01-01 10:00:00.000001')")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('b', '2024-01-01 10:00:00.000002')")
    offsets = DictOffsetStorageReader()
    offsets.commit(
        {"protocol": "1", "table": "public.orders"}, {"timestamp": 1704103200000, "timestamp_nanos": 1000}
    )

    records = drain(
        started_task(jdbc_config(database, mode="timestamp", **{"timestamp.column.name": "updated"}), offsets)
    )

    assert values(records, "item") == ["b"]


def test_timestamp_incrementing_mode_splits_rows_of_one_timestamp_over_batches_without_loss(
    database: PostgresAddress,
) -> None:
    for item in "abcde":
        execute(
            database, "INSERT INTO orders (item, updated) VALUES (%s, '2024-01-01 10:00:00')", params=(item,)
        )
    config = jdbc_config(
        database,
        mode="timestamp+incrementing",
        **{"timestamp.column.name": "updated", "incrementing.column.name": "id", "batch.max.rows": "2"},
    )
    offsets = DictOffsetStorageReader()
    task = started_task(config, offsets)
    first = task.poll() or []
    commit_last(offsets, first)
    task.stop()

    rest = drain(started_task(config, offsets))

    assert values(first, "item") + values(rest, "item") == list("abcde")
    assert rest[-1].source_offset == {"incrementing": 5, "timestamp": 1704103200000, "timestamp_nanos": 0}


def test_timestamp_columns_are_compared_through_coalesce(database: PostgresAddress) -> None:
    execute(database, "ALTER TABLE orders ADD COLUMN modified timestamp")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('a', '2024-01-01 10:00:00')")
    execute(
        database,
        "INSERT INTO orders (item, updated, modified) "
        "VALUES ('b', '2024-01-01 09:00:00', '2024-01-01 12:00:00')",
    )
    config = jdbc_config(database, mode="timestamp", **{"timestamp.column.name": "modified,updated"})

    records = drain(started_task(config))

    assert values(records, "item") == ["a", "b"]


def test_timestamp_delay_leaves_out_rows_newer_than_the_delay(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('old', now() - interval '2 hours')")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('new', now())")
    config = jdbc_config(
        database,
        mode="timestamp",
        **{"timestamp.column.name": "updated", "timestamp.delay.interval.ms": "3600000"},
    )
    assert values(drain(started_task(config)), "item") == ["old"]


def test_timestamp_initial_skips_older_rows_when_there_is_no_offset(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('old', '2020-01-01')")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('new', '2024-01-01')")
    millis = str(int(dt.datetime(2022, 1, 1, tzinfo=dt.UTC).timestamp() * 1000))
    config = jdbc_config(
        database, mode="timestamp", **{"timestamp.column.name": "updated", "timestamp.initial": millis}
    )
    assert values(drain(started_task(config)), "item") == ["new"]


def test_bulk_mode_returns_the_whole_table_at_each_poll_without_offsets(database: PostgresAddress) -> None:
    insert(database, "a", "b")
    task = started_task(jdbc_config(database, mode="bulk"))
    first = task.poll() or []
    second = task.poll() or []
    assert values(first, "item") == values(second, "item") == ["a", "b"]
    assert {str(r.source_offset) for r in first} == {"None"}


def test_query_mode_writes_to_the_topic_prefix_under_the_query_partition(database: PostgresAddress) -> None:
    insert(database, "a", "b", "c")
    config = jdbc_config(
        database,
        mode="incrementing",
        query="SELECT id, upper(item) AS shout FROM orders",
        **{"incrementing.column.name": "id", "topic.prefix": "shouts"},
    )
    offsets = DictOffsetStorageReader()
    offsets.commit({"query": "query"}, {"incrementing": 1})

    records = drain(started_task(config, offsets))

    assert values(records, "shout") == ["B", "C"]
    assert {r.topic for r in records} == {"shouts"}
    assert records[-1].source_partition == {"query": "query"}
    assert records[-1].source_offset == {"incrementing": 3}


@pytest.mark.parametrize(
    ("mapping", "column", "expected_schema", "expected"),
    [
        ("none", "numeric(5,2)", Decimal.schema(2), decimal.Decimal("12.50")),
        ("best_fit", "numeric(5,2)", Schema(Type.FLOAT64), 12.5),
        ("best_fit", "numeric(8,0)", Schema(Type.INT32), 12),
        ("precision_only", "numeric(12,0)", Schema(Type.INT64), 12),
        ("precision_only", "numeric(5,2)", Decimal.schema(2), decimal.Decimal("12.50")),
        ("best_fit", "numeric(30,0)", Decimal.schema(0), decimal.Decimal("12")),
    ],
)
def test_numeric_mapping_chooses_the_connect_type_by_precision_and_scale(
    database: PostgresAddress, mapping: str, column: str, expected_schema: Schema, expected: object
) -> None:
    execute(database, f"CREATE TABLE amounts (id serial PRIMARY KEY, amount {column} NOT NULL)")
    execute(database, "INSERT INTO amounts (amount) VALUES (%s)", params=(str(expected),))
    config = jdbc_config(database, mode="bulk", **{"table.whitelist": "amounts", "numeric.mapping": mapping})

    (record,) = started_task(config).poll() or []

    field = record.value.schema.field("amount")
    assert (field.schema.type, field.schema.name, Decimal.LOGICAL_NAME in str(field.schema.name)) == (
        expected_schema.type,
        expected_schema.name,
        expected_schema.name == Decimal.LOGICAL_NAME,
    )
    assert record.value.get("amount") == expected


def test_timestamps_without_time_zone_are_read_in_db_timezone(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('a', '2024-06-01 12:00:00')")
    config = jdbc_config(database, mode="bulk", **{"db.timezone": "Europe/Paris"})
    (record,) = started_task(config).poll() or []
    assert record.value.get("updated") == dt.datetime(2024, 6, 1, 10, 0, tzinfo=dt.UTC)
    assert record.value.schema.field("updated").schema.name == Timestamp.LOGICAL_NAME


def test_columns_of_types_without_a_mapping_are_left_out(database: PostgresAddress) -> None:
    execute(database, "CREATE TABLE shapes (id serial PRIMARY KEY, tags text[], span interval, name text)")
    execute(database, "INSERT INTO shapes (tags, span, name) VALUES ('{a}', '1 day', 'x')")
    (record,) = started_task(jdbc_config(database, mode="bulk", **{"table.whitelist": "shapes"})).poll() or []
    assert [f.name for f in record.value.schema.fields] == ["id", "name"]
    assert record.value.get("name") == "x"


def test_a_numeric_nan_fails_saying_how_to_map_it(database: PostgresAddress) -> None:
    execute(database, "CREATE TABLE amounts (id serial PRIMARY KEY, amount numeric(5,2))")
    execute(database, "INSERT INTO amounts (amount) VALUES ('NaN')")
    task = started_task(jdbc_config(database, mode="bulk", **{"table.whitelist": "amounts"}))
    with pytest.raises(ConnectError, match=r"numeric\.mapping=best_fit"):
        task.poll()


def test_column_mappings_choose_each_tables_columns(database: PostgresAddress) -> None:
    execute(database, "CREATE TABLE events (seq bigserial PRIMARY KEY, happened timestamp NOT NULL)")
    execute(database, "INSERT INTO events (happened) VALUES ('2024-01-01 10:00:00')")
    execute(database, "INSERT INTO orders (item, updated) VALUES ('a', '2024-01-02 10:00:00')")
    config = jdbc_config(
        database,
        mode="timestamp+incrementing",
        **{
            "table.include.list": "public\\..*",
            "incrementing.column.mapping": "public\\.orders:id,public\\.events:seq",
            "timestamp.columns.mapping": "public\\.orders:[updated],public\\.ev.*:[happened]",
        },
    )
    records = drain(started_task(config))
    offsets = {r.topic: r.source_offset for r in records}
    assert offsets == {
        "events": {"incrementing": 1, "timestamp": 1704103200000, "timestamp_nanos": 0},
        "orders": {"incrementing": 1, "timestamp": 1704189600000, "timestamp_nanos": 0},
    }


def test_queries_run_at_the_transaction_isolation_mode_asked_for(database: PostgresAddress) -> None:
    execute(
        database, "CREATE VIEW isolation AS SELECT 1 AS id, current_setting('transaction_isolation') AS level"
    )
    config = jdbc_config(
        database,
        mode="bulk",
        **{
            "table.whitelist": "isolation",
            "table.types": "VIEW",
            "transaction.isolation.mode": "SERIALIZABLE",
        },
    )
    (record,) = started_task(config).poll() or []
    assert record.value.get("level") == "serializable"


def test_a_lost_connection_is_retried_from_the_last_row_returned(database: PostgresAddress) -> None:
    insert(database, *"abcde")
    task = started_task(jdbc_config(database, mode="incrementing", **{"batch.max.rows": "2"}))
    first = task.poll() or []
    execute(
        database,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'conveyor-jdbc-source'",
    )

    with pytest.raises(RetriableError, match="Lost the connection"):
        task.poll()
    rest = drain(task)

    assert values(first, "item") + values(rest, "item") == list("abcde")


def test_timestamp_initial_minus_one_starts_at_the_databases_current_time(database: PostgresAddress) -> None:
    execute(database, "INSERT INTO orders (item, updated) VALUES ('old', now() - interval '1 hour')")
    config = jdbc_config(
        database, mode="timestamp", **{"timestamp.column.name": "updated", "timestamp.initial": "-1"}
    )
    task = started_task(config)
    execute(database, "INSERT INTO orders (item, updated) VALUES ('new', now() + interval '1 second')")

    new = wait_for_rows(task)

    assert values(new, "item") == ["new"]


def test_query_suffix_is_appended_to_the_generated_query(database: PostgresAddress) -> None:
    insert(database, "a", "b", "c")
    task = started_task(jdbc_config(database, mode="incrementing", **{"query.suffix": "LIMIT 1"}))
    assert [values(task.poll() or [], "item") for _ in range(3)] == [["a"], ["b"], ["c"]]
