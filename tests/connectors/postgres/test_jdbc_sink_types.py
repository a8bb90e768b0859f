"""Connect schemas as PostgreSQL column types (auto.create), and every kind of value read back as written."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

import pytest
from jdbc_sink_support import create_database, query, record, sink_config, started_task, unique_table

from conveyor.api import TopicPartition
from conveyor.connectors.postgres.sink_schema import sql_type
from conveyor.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from conveyor.postgres_server import PostgresServer


def named(schema_type: Type, name: str) -> Schema:
    return Schema(schema_type, name=name)


INNER = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()

#: field name -> (schema, value written, column type, value read back by psycopg2)
CASES: dict[str, tuple[Schema, Any, str, Any]] = {
    "i8": (INT8_SCHEMA, -8, "smallint", -8),
    "i16": (INT16_SCHEMA, 16, "smallint", 16),
    "i32": (INT32_SCHEMA, 2**31 - 1, "integer", 2**31 - 1),
    "i64": (INT64_SCHEMA, -(2**63), "bigint", -(2**63)),
    "f32": (FLOAT32_SCHEMA, 1.5, "real", 1.5),
    "f64": (FLOAT64_SCHEMA, 2.25e300, "double precision", 2.25e300),
    "flag": (BOOLEAN_SCHEMA, True, "boolean", True),
    "text": (STRING_SCHEMA, "tab\there\nnew \\ line é", "text", "tab\there\nnew \\ line é"),
    "raw": (BYTES_SCHEMA, b"\x00\x01\\\t\xff", "bytea", b"\x00\x01\\\t\xff"),
    "amount": (Decimal.schema(2), decimal.Decimal("-12.34"), "numeric", decimal.Decimal("-12.34")),
    "day": (Date.SCHEMA, dt.date(2024, 2, 29), "date", dt.date(2024, 2, 29)),
    "clock": (
        Time.SCHEMA,
        dt.time(23, 59, 58, 123000),
        "time without time zone",
        dt.time(23, 59, 58, 123000),
    ),
    "at": (
        Timestamp.SCHEMA,
        dt.datetime(2024, 5, 6, 7, 8, 9, 10000, tzinfo=dt.UTC),
        "timestamp without time zone",
        dt.datetime(2024, 5, 6, 7, 8, 9, 10000),
    ),
    "numbers": (SchemaBuilder.array(OPTIONAL_INT64_SCHEMA).build(), [1, None, 3], "bigint[]", [1, None, 3]),
    "words": (
        SchemaBuilder.array(OPTIONAL_STRING_SCHEMA).build(),
        ['a "b"', "c,d", None],
        "text[]",
        ['a "b"', "c,d", None],
    ),
    "attrs": (SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"k": 1}, "jsonb", {"k": 1}),
    "nested": (INNER, Struct(INNER).put("a", 5), "jsonb", {"a": 5}),
    "dbz_day": (named(Type.INT32, "io.debezium.time.Date"), 19782, "date", dt.date(2024, 2, 29)),
    "dbz_micros": (
        named(Type.INT64, "io.debezium.time.MicroTimestamp"),
        1_700_000_000_123_456,
        "timestamp without time zone",
        dt.datetime(2023, 11, 14, 22, 13, 20, 123456),
    ),
    "dbz_micro_time": (
        named(Type.INT64, "io.debezium.time.MicroTime"),
        3_600_000_001,
        "time without time zone",
        dt.time(1, 0, 0, 1),
    ),
    "dbz_zoned": (
        named(Type.STRING, "io.debezium.time.ZonedTimestamp"),
        "2024-01-02T03:04:05Z",
        "timestamp with time zone",
        dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
    ),
    "dbz_json": (named(Type.STRING, "io.debezium.data.Json"), '{"x": [1]}', "jsonb", {"x": [1]}),
    "dbz_uuid": (
        named(Type.STRING, "io.debezium.data.Uuid"),
        "12345678-1234-5678-1234-567812345678",
        "uuid",
        "12345678-1234-5678-1234-567812345678",
    ),
}


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


@pytest.mark.parametrize("field", sorted(CASES))
def test_each_connect_type_maps_to_its_postgresql_column_type(field: str) -> None:
    schema, _, column_type, _ = CASES[field]
    assert sql_type(schema) == _SHORT_NAMES.get(column_type, column_type)


_SHORT_NAMES = {
    "time without time zone": "time",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz",
}


def _all_types_record(topic: str) -> tuple[Schema, Struct]:
    builder = SchemaBuilder.struct()
    for field, (schema, _, _, _) in CASES.items():
        builder = builder.field(field, schema)
    schema = builder.build()
    value = Struct(schema)
    for field, (_, written, _, _) in CASES.items():
        value.put(field, written)
    return schema, value


def test_auto_create_gives_every_field_its_column_type_and_values_read_back_as_written(
    postgres: PostgresServer, database: str
) -> None:
    topic = unique_table("types")
    _, value = _all_types_record(topic)
    config = sink_config(postgres, database, auto_create="true")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, value)])
    types = dict(
        query(
            postgres,
            database,
            "SELECT column_name, format_type(atttypid, atttypmod) FROM information_schema.columns c "
            "JOIN pg_attribute a ON a.attrelid = %s::regclass AND a.attname = c.column_name "
            "WHERE c.table_name = %s",
            f'"{topic}"',
            topic,
        )
    )
    names = list(CASES)
    read = query(postgres, database, f'SELECT {", ".join(names)} FROM "{topic}"')[0]
    got = {name: (types[name], _plain(v)) for name, v in zip(names, read, strict=True)}
    assert got == {name: (case[2], case[3]) for name, case in CASES.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def test_timestamps_are_written_as_the_wall_time_of_db_timezone(
    postgres: PostgresServer, database: str
) -> None:
    topic = unique_table("tz")
    schema = SchemaBuilder.struct().field("at", Timestamp.SCHEMA).build()
    value = Struct(schema).put("at", dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC))
    config = sink_config(postgres, database, auto_create="true", db_timezone="Europe/Paris")
    with started_task(config, [TopicPartition(topic, 0)]) as (task, _):
        task.put([record(topic, 0, value)])
    assert query(postgres, database, f'SELECT at FROM "{topic}"') == [(dt.datetime(2024, 7, 1, 14, 0),)]
