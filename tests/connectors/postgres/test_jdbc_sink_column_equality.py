"""The JDBC sink's fast path (JSON batches converted a column at a time, ``put_columns``, COPY text built a
column at a time, the writer thread's one-round-trip transaction) writes the rows its record by record path
(one envelope at a time through ``to_connect_data``, then ``put``) writes, for generated values of every
type the fast path handles, on a real PostgreSQL database."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdbc_sink_support import create_database, query, sink_config, started_task, unique_table

from conveyor.api import TopicPartition
from conveyor.convert import JsonConverter
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT64_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT8_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkColumns,
    SinkRecord,
    Struct,
    Timestamp,
)
from conveyor.postgres_server import PostgresServer

PRIMITIVES = (
    SchemaBuilder.struct()
    .field("id", INT64_SCHEMA)
    .field("i8", OPTIONAL_INT8_SCHEMA)
    .field("i16", OPTIONAL_INT16_SCHEMA)
    .field("i32", OPTIONAL_INT32_SCHEMA)
    .field("f64", FLOAT64_SCHEMA)
    .field("of64", OPTIONAL_FLOAT64_SCHEMA)
    .field("flag", BOOLEAN_SCHEMA)
    .field("oflag", OPTIONAL_BOOLEAN_SCHEMA)
    .field("text", STRING_SCHEMA)
    .field("otext", OPTIONAL_STRING_SCHEMA)
    .field("ranked", SchemaBuilder.int32().optional().default_value(5).build())
    .field("big", OPTIONAL_INT64_SCHEMA)
    .field("of32", OPTIONAL_FLOAT32_SCHEMA)
    .field("nothing", OPTIONAL_INT64_SCHEMA)
    .field("otherwise", OPTIONAL_STRING_SCHEMA)
    .build()
)
LOGICAL = (
    SchemaBuilder.struct()
    .field("id", INT64_SCHEMA)
    .field("f32", OPTIONAL_FLOAT32_SCHEMA)
    .field("amount", Decimal.builder(2).optional().build())
    .field("day", Date.builder().optional().build())
    .field("at", Timestamp.builder().optional().build())
    .field("raw", OPTIONAL_BYTES_SCHEMA)
    .build()
)

texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00") | st.sampled_from("\\\t\n\r"),
    max_size=12,
)
floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1e16, 1e-7, 5e-324])
FIELDS: dict[Schema, dict[str, st.SearchStrategy[Any]]] = {
    PRIMITIVES: {
        "i8": st.none() | st.integers(-(2**7), 2**7 - 1),
        "i16": st.none() | st.integers(-(2**15), 2**15 - 1),
        "i32": st.none() | st.integers(-(2**31), 2**31 - 1),
        "f64": floats,
        "of64": st.none() | floats,
        "flag": st.booleans(),
        "oflag": st.none() | st.booleans(),
        "text": texts,
        "otext": st.none() | texts,
        "ranked": st.none() | st.integers(-(2**31), 2**31 - 1),
        "big": st.none() | st.integers(-(2**63), 2**63 - 1),
        "of32": st.none() | st.floats(width=32, allow_nan=True, allow_infinity=True),
        "nothing": st.none(),
        "otherwise": st.none() | st.just("\\N") | texts,
    },
    LOGICAL: {
        "f32": st.none() | st.floats(width=32),
        "amount": st.none()
        | st.decimals(min_value=-(10**12), max_value=10**12, places=2, allow_nan=False, allow_infinity=False),
        "day": st.none() | st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)),
        "at": st.none()
        | st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2200, 1, 1)).map(
            lambda at: at.replace(microsecond=at.microsecond // 1000 * 1000, tzinfo=dt.UTC)
        ),
        "raw": st.none() | st.binary(max_size=8),
    },
}


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> str:
    return create_database(postgres)


def structs(schema: Schema) -> st.SearchStrategy[list[Struct]]:
    """Three to twenty structs of ``schema``, with ids 0, 1, 2, ..."""

    def build(values: list[dict[str, Any]]) -> list[Struct]:
        built = []
        for index, fields in enumerate(values):
            struct = Struct(schema).put("id", index)
            for name, field_value in fields.items():
                struct.put(name, field_value)
            built.append(struct)
        return built

    return st.lists(st.fixed_dictionaries(FIELDS[schema]), min_size=3, max_size=20).map(build)


def envelopes(values: list[Struct]) -> list[bytes]:
    converter = JsonConverter()
    converter.configure({}, is_key=False)
    return [converter.from_connect_data("t", value.schema, value) or b"" for value in values]


def fresh_converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({}, is_key=False)
    return converter


def columns(topic: str, schemas: Sequence[Schema | None], values: Sequence[Any]) -> SinkColumns:
    count = len(values)
    none: list[Any] = [None] * count
    return SinkColumns(topic, 0, list(range(count)), none, none, schemas, values, none, count)


def as_columns(topic: str, data: list[bytes]) -> SinkColumns:
    """The batch as the sink's loop converts it."""
    return columns(topic, *fresh_converter().to_connect_columns(topic, data))


def as_records(topic: str, data: list[bytes]) -> list[SinkRecord]:
    """The batch converted one envelope at a time, as records."""
    converter = fresh_converter()
    converted = [converter.to_connect_data(topic, value) for value in data]
    return columns(topic, [item.schema for item in converted], [item.value for item in converted]).records()


def table_rows(server: PostgresServer, database: str, table: str) -> list[tuple[str, ...]]:
    """The rows in id order, as ``repr`` (so that NaN equals NaN; ``bytea`` as bytes)."""
    return [
        tuple(repr(bytes(v)) if isinstance(v, memoryview) else repr(v) for v in row)
        for row in query(server, database, f'SELECT * FROM "{table}" ORDER BY id')
    ]


@pytest.mark.parametrize("schema", [PRIMITIVES, LOGICAL], ids=["primitives", "logical"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_column_path_writes_the_rows_of_the_record_path(
    postgres: PostgresServer, database: str, schema: Schema, data: st.DataObject
) -> None:
    values = data.draw(structs(schema))
    encoded = envelopes(values)
    fast, slow = unique_table("fast"), unique_table("slow")
    partition_of = {name: TopicPartition(name, 0) for name in (fast, slow)}
    config = sink_config(postgres, database, auto_create="true", pk_mode="none")

    with started_task(config, [partition_of[fast], partition_of[slow]]) as (task, _):
        task.put_columns(as_columns(fast, encoded))
        task.put(as_records(slow, encoded))
        committed = task.pre_commit({partition: len(values) for partition in partition_of.values()})

    assert table_rows(postgres, database, fast) == table_rows(postgres, database, slow)
    assert len(table_rows(postgres, database, fast)) == len(values)
    assert committed == {partition: len(values) for partition in partition_of.values()}
