"""The snapshot's rows written as JSON by PostgreSQL: when its records reach default JsonConverters
unchanged, the task hands over the converter's bytes, and they are byte for byte what converting the
Connect values gives, for every covered column type and setting; other tables keep the Connect values."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg2 import sql
from tests.connectors.postgres.cdc_tasks import cdc_config, task_run
from tests.connectors.postgres.databases import execute, fresh_database

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.snapshot_json import MIN_EXACT_VERSION, json_expression
from conveyor.connectors.postgres.types import PgType, TypeOptions
from conveyor.convert import SimpleHeaderConverter
from conveyor.convert.encoded_json import EncodedJson, default_converter
from conveyor.data import SourceRecord
from conveyor.errors import ConnectError
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.plugins import load_chain_plugin
from conveyor.postgres_server import PostgresServer
from conveyor.transforms import TransformationChain

PREFIX = "jsonsnap"
MOODS = ("sad", "ok", "happy 'quoted'", 'back\\slash "x"')
COLUMNS = {
    "small": "int2",
    "whole": "int4 NOT NULL",
    "flag": "bool",
    "label": "text",
    "code": "varchar(12)",
    "padded": "char(5)",
    "letter": '"char"',
    "title": "name",
    "token": "uuid",
    "address": "inet",
    "doc": "json",
    "bdoc": "jsonb",
    "amount": "numeric(12,3)",
    "free": "numeric",
    "mood": "mood",
    "note": "short_text",
    "ident": "oid",
    "ratio": "float8",
    "born": "date",
    "clock": "time",
    "clock3": "time(3)",
    "at": "timestamp",
    "at3": "timestamp(3) NOT NULL",
    "zoned": "timestamptz",
    "zoned2": "timestamptz(2)",
    "zoned_clock": "timetz",
    "span": "interval",
    "raw": "bytea",
    "ratios": "float8[]",
    "stamps": "timestamptz[]",
    "tags": "text[]",
    "days": "date[]",
    "blobs": "bytea[]",
    "sums": "numeric[]",
    "cash": "money",
    "cashes": "money[]",
    "bit1": "bit(1)",
    "bits": "bit varying",
    "bits12": "bit(12)",
    "bitses": "bit varying(20)[]",
}
"""Every column type the JSON path covers."""
OTHER_COLUMNS = {"tiny": "real"}
"""Columns that keep a table on the Connect value path."""
_RUN_NUMBERS = re.compile(rb'"(ts_ms|ts_us|ts_ns|txId|lsn)":\d+|"sequence":"(?:[^"\\]|\\.)*"')
"""What differs between two snapshots of the same rows: the snapshot's time, transaction and LSN."""

TRICKY = "\x01\x08\x0b\x1f\t\n\r\f\\\"'/ é\u2028\x7f\U0001f600"
"""Characters JSON, COPY or both escape, and some they do not."""
characters = st.sampled_from(TRICKY) | st.characters(
    blacklist_categories=("Cs",), blacklist_characters="\x00"
)
texts = st.text(characters, max_size=24)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def nullable(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | values


zones = st.integers(-14 * 60, 14 * 60).map(lambda minutes: dt.timezone(dt.timedelta(minutes=minutes)))
doubles = st.floats() | st.sampled_from([0.0, -0.0, 1e7, 1e-3, 9999999.999999998, 2.0**52, 2.0**53 + 2, 1e23])
stamps = st.datetimes(dt.datetime(2, 1, 1), dt.datetime(9998, 12, 31))
zoned_stamps = st.datetimes(dt.datetime(2, 1, 1), dt.datetime(9998, 12, 31), timezones=zones)
far_dates = st.sampled_from(
    ["4713-01-01 BC", "0001-12-31 BC", "0001-02-29 BC", "10000-01-01", "5874897-12-31"]
)
far_stamps = st.sampled_from(
    [
        "4713-01-01 00:00:00 BC",
        "0001-02-29 12:00:00.5 BC",
        "12345-06-07 08:09:10.5",
        "294247-01-10 04:00:54.775807",
    ]
)
"""``date`` and ``timestamp`` texts before year 1 or after 9999, which the ``connect`` mode refuses."""
far_zoned = st.sampled_from(
    [
        "4713-01-01 00:00:00+00 BC",
        "0044-03-15 10:00:00.25+02 BC",
        "12345-06-07 08:09:10.5+00",
        "294276-12-31 23:59:59+00",
    ]
)
huge_numerics = st.integers(-(10**60), 10**60).map(decimal.Decimal) | st.integers(0, 200).map(
    lambda n: decimal.Decimal(f"-7e-{n}")
)
monies = st.decimals(min_value=-(10**15), max_value=10**15, places=2) | st.sampled_from(
    [decimal.Decimal("-92233720368547758.08"), decimal.Decimal("92233720368547758.07"), decimal.Decimal(0)]
)
spans = st.tuples(
    st.integers(-10_000, 10_000), st.integers(-11, 11), st.integers(-40, 40), st.integers(-(10**12), 10**12)
).map(lambda p: f"{p[0]} years {p[1]} mons {p[2]} days {p[3]} microseconds")
bit_strings = st.text("01", max_size=80) | st.integers(0, 80).map(lambda n: "1" * n)


def array_literal(items: list[str | None]) -> str:
    """An array's text form, so that PostgreSQL reads it as the column's array type (a list would be
    sent as ``text[]``, which no cast assigns to a bit string array)."""
    return "{" + ",".join("NULL" if item is None else f'"{item}"' for item in items) + "}"


rows = st.fixed_dictionaries(
    {
        "small": nullable(st.integers(-(2**15), 2**15 - 1)),
        "whole": st.integers(-(2**31), 2**31 - 1),
        "flag": nullable(st.booleans()),
        "label": nullable(texts),
        "code": nullable(st.text(characters, max_size=12)),
        "padded": nullable(st.text("ab \t\\\"'é", max_size=5)),
        "letter": nullable(st.sampled_from('aZ\\" 1')),
        "title": nullable(st.text('xyz\\"\n é', max_size=20)),
        "token": nullable(st.uuids().map(str)),
        "address": nullable(st.ip_addresses().map(str)),
        "doc": nullable(
            st.tuples(json_values, st.booleans()).map(lambda v: json.dumps(v[0], ensure_ascii=v[1]))
        ),
        "bdoc": nullable(json_values.map(json.dumps)),
        "amount": nullable(
            st.decimals(min_value=-(10**8), max_value=10**8, places=3, allow_nan=False)
            | st.just(decimal.Decimal("NaN"))
        ),
        "free": nullable(
            st.decimals(
                allow_nan=False, allow_infinity=False, places=6, min_value=-(10**20), max_value=10**20
            )
            | huge_numerics
        ),
        "mood": nullable(st.sampled_from(MOODS)),
        "note": nullable(st.text('ab\\\t\n"', max_size=8)),
        "ident": nullable(st.integers(0, 2**32 - 1)),
        "ratio": nullable(doubles),
        "born": nullable(
            st.dates(dt.date(1, 1, 1))
            | st.sampled_from([dt.date(2024, 2, 29), dt.date(1969, 12, 31)])
            | far_dates
        ),
        "clock": nullable(st.times() | st.just("24:00:00")),
        "clock3": nullable(st.times()),
        "at": nullable(st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23)) | far_stamps),
        "at3": stamps,
        "zoned": nullable(zoned_stamps | far_zoned),
        "zoned2": nullable(zoned_stamps),
        "zoned_clock": nullable(st.times(timezones=zones)),
        "span": nullable(spans),
        "raw": nullable(st.binary(max_size=80)),
        "ratios": nullable(st.lists(nullable(doubles), max_size=4)),
        "stamps": nullable(st.lists(nullable(zoned_stamps), max_size=3)),
        "tags": nullable(st.lists(nullable(texts), max_size=3)),
        "days": nullable(st.lists(nullable(st.dates(dt.date(1, 1, 1))), max_size=3)),
        "blobs": nullable(st.lists(nullable(st.binary(max_size=8)), max_size=3)),
        "sums": nullable(
            st.lists(nullable(st.decimals(allow_nan=False, allow_infinity=False, places=4)), max_size=3)
        ),
        "cash": nullable(monies),
        "cashes": nullable(st.lists(nullable(monies), max_size=3)),
        "bit1": nullable(st.sampled_from(["0", "1"])),
        "bits": nullable(bit_strings),
        "bits12": nullable(st.text("01", min_size=12, max_size=12)),
        "bitses": nullable(st.lists(nullable(st.text("01", max_size=20)), max_size=3).map(array_literal)),
    }
)


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jsonsnap") as target:
        labels = ", ".join("'" + mood.replace("'", "''") + "'" for mood in MOODS)
        execute(
            target,
            f"CREATE TYPE mood AS ENUM ({labels})",
            "CREATE DOMAIN short_text AS varchar(8)",
        )
        yield target


def pipeline() -> RecordPipeline:
    errors = ErrorHandler(ErrorPolicy(), "json-snapshot", 0)
    return RecordPipeline(
        default_converter(True),
        default_converter(False),
        SimpleHeaderConverter(),
        TransformationChain(),
        errors,
    )


def snapshot(
    database: PostgresAddress, table: str, count: int, json_unchanged: bool, modes: dict[str, str]
) -> tuple[list[SourceRecord], list[tuple[bytes | None, bytes | None]]]:
    """The snapshot records of ``table`` and their key and value bytes through default JsonConverters."""
    suffix = uuid.uuid4().hex[:8]
    config = cdc_config(
        database,
        PREFIX,
        **{
            "slot.name": f"slot_{suffix}",
            "publication.name": f"publication_{suffix}",
            "publication.autocreate.mode": "filtered",
            "table.include.list": f"public.{table}",
            "slot.drop.on.stop": "true",
            "snapshot.mode": "initial_only",
            "snapshot.chunk.size": "7",
            "snapshot.fetch.size": "3",
            "max.batch.size": "4",
            **modes,
        },
    )
    topic = f"{PREFIX}.public.{table}"
    with task_run(config, json_unchanged=json_unchanged) as run:
        records = [record for record in run.poll_count(count) if record.topic == topic]
    written: list[tuple[bytes | None, bytes | None]] = []
    for batch in pipeline().to_log(records):
        written.extend(zip(batch.keys, batch.values, strict=True))
    return records, written


def same_run_numbers(value: bytes | None) -> bytes | None:
    return None if value is None else _RUN_NUMBERS.sub(rb'"\1":0', value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    table_rows=st.lists(rows, min_size=1, max_size=20),
    decimal_mode=st.sampled_from(["string", "string", "precise", "double"]),
    time_mode=st.sampled_from(["adaptive", "adaptive_time_microseconds", "connect"]),
    other_column=st.sampled_from([False, False, False, True]),
)
def test_the_bytes_written_from_postgres_json_are_those_of_the_converted_connect_values(
    database: PostgresAddress,
    table_rows: list[dict[str, Any]],
    decimal_mode: str,
    time_mode: str,
    other_column: bool,
) -> None:
    table = f"rows_{uuid.uuid4().hex[:8]}"
    columns = {**COLUMNS, **(OTHER_COLUMNS if other_column else {})}
    definitions = ", ".join(f"{name} {kind}" for name, kind in columns.items())
    names = ", ".join(["id", *COLUMNS])
    placeholders = ", ".join(["%s"] * (len(COLUMNS) + 1))
    execute(database, f"CREATE TABLE {table} (id bigint PRIMARY KEY, {definitions})")
    for index, row in enumerate(table_rows):
        if decimal_mode == "precise" and row["amount"] is not None and row["amount"].is_nan():
            row = {**row, "amount": None}  # a Connect Decimal has no NaN: Debezium fails the task too
        if time_mode == "connect":  # Python's dates and datetimes hold years 1 to 9999 only
            row = {**row, **{name: None for name in ("born", "at") if isinstance(row[name], str)}}
        execute(
            database,
            f"INSERT INTO {table} ({names}) VALUES ({placeholders})",
            params=[index * 3 - 20, *(row[name] for name in COLUMNS)],
        )
    if other_column:
        execute(database, f"UPDATE {table} SET tiny = id / 7.0")
    modes = {"decimal.handling.mode": decimal_mode, "time.precision.mode": time_mode}
    count = len(table_rows)
    try:
        converted, expected = snapshot(database, table, count, False, modes)
        encoded, written = snapshot(database, table, count, True, modes)
    finally:
        execute(database, f"DROP TABLE {table}")

    covered = not other_column
    assert all((type(record.value) is EncodedJson) is covered for record in encoded)
    assert not any(type(record.value) is EncodedJson for record in converted)
    assert [key for key, _ in written] == [key for key, _ in expected]
    assert [same_run_numbers(value) for _, value in written] == [
        same_run_numbers(value) for _, value in expected
    ], _first_difference(
        [same_run_numbers(value) for _, value in written], [same_run_numbers(value) for _, value in expected]
    )
    assert [_without_plan(record.source_offset) for record in encoded] == [
        _without_plan(record.source_offset) for record in converted
    ]


def _first_difference(written: list[bytes | None], expected: list[bytes | None]) -> str:
    """The fields of the first ``after`` payloads that differ, to tell which column and value did."""
    for ours, theirs in zip(written, expected, strict=True):
        if ours != theirs and ours is not None and theirs is not None:
            left = json.loads(ours)["payload"]["after"]
            right = json.loads(theirs)["payload"]["after"]
            fields = {name: (left[name], right.get(name)) for name in left if left[name] != right.get(name)}
            at = next(n for n, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b)
            return f"{fields!r} at {ours[at - 80 : at + 40]!r} / {theirs[at - 80 : at + 40]!r}"
    return "no payload differs"


def _without_plan(offset: Any) -> dict[str, Any]:
    return {name: value for name, value in offset.items() if name != "plan"}


@pytest.mark.parametrize("json_unchanged", [False, True])
def test_a_timestamp_the_connect_value_path_refuses_fails_the_snapshot_on_either_path(
    database: PostgresAddress, json_unchanged: bool
) -> None:
    table = f"rows_{uuid.uuid4().hex[:8]}"
    execute(
        database,
        f"CREATE TABLE {table} (id bigint PRIMARY KEY, at timestamp)",
        f"INSERT INTO {table} VALUES (1, '2024-02-29 10:00:00'), (2, 'infinity')",
    )
    try:
        with pytest.raises(ConnectError, match=r"timestamp 'infinity' is infinite"):
            snapshot(database, table, 2, json_unchanged, {})
    finally:
        execute(database, f"DROP TABLE {table}")


def test_encoded_records_read_back_into_connect_values_for_a_pipeline_with_a_transformation(
    database: PostgresAddress,
) -> None:
    """A task told its JSON passes unchanged whose pipeline converts after all (a transformation) gets the
    same records as one given Connect values."""
    table = f"rows_{uuid.uuid4().hex[:8]}"
    execute(
        database,
        f"CREATE TABLE {table} (id bigint PRIMARY KEY, label text, mood mood)",
        f"INSERT INTO {table} VALUES (1, 'one\ttab', 'ok'), (2, NULL, NULL), (3, 'é \"q\" \\', 'sad')",
    )
    modes: dict[str, str] = {}
    try:
        converted, _ = snapshot(database, table, 3, False, modes)
        encoded, _ = snapshot(database, table, 3, True, modes)
    finally:
        execute(database, f"DROP TABLE {table}")
    assert all(type(record.value) is EncodedJson for record in encoded)
    errors = ErrorHandler(ErrorPolicy(), "json-snapshot", 0)
    chain = TransformationChain.from_connector_config(
        {
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-routed",
        },
        load_chain_plugin,
    )
    routed = RecordPipeline(
        default_converter(True), default_converter(False), SimpleHeaderConverter(), chain, errors
    )
    assert not routed.writes_json_unchanged()
    routed.to_log(encoded)
    assert [record.key for record in encoded] == [record.key for record in converted]
    assert [record.value.get("after") for record in encoded] == [
        record.value.get("after") for record in converted
    ]


def test_money_keeps_the_connect_value_path_when_its_fraction_digits_are_not_lc_monetary_s() -> None:
    money, column = PgType(790, "money"), sql.Identifier("cash")
    for digits, covered in ((3, False), (2, True)):
        options = TypeOptions(money_fraction_digits=digits)
        expression = json_expression(money, -1, options, column, MIN_EXACT_VERSION, money_scale=2)
        assert (expression is not None) is covered


def test_text_keys_with_tabs_backslashes_and_newlines_page_and_write_as_on_the_connect_value_path(
    database: PostgresAddress,
) -> None:
    """Pages end and resume after such a key, and its bytes and offsets are the Connect value path's."""
    table = f"rows_{uuid.uuid4().hex[:8]}"
    names = ["a\tb", "back\\slash", "line\nbreak", 'quote "q"', "\\t", "é\r", "plain", "\\\\n"]
    execute(database, f"CREATE TABLE {table} (name text PRIMARY KEY, n int)")
    for index, name in enumerate(names):
        execute(database, f"INSERT INTO {table} VALUES (%s, %s)", params=[name, index])
    try:
        converted, expected = snapshot(database, table, len(names), False, {})
        encoded, written = snapshot(database, table, len(names), True, {})
    finally:
        execute(database, f"DROP TABLE {table}")
    assert all(type(record.value) is EncodedJson for record in encoded)
    assert len(written) == len(names)
    assert [key for key, _ in written] == [key for key, _ in expected]
    assert [same_run_numbers(value) for _, value in written] == [
        same_run_numbers(value) for _, value in expected
    ]
    assert [_without_plan(record.source_offset) for record in encoded] == [
        _without_plan(record.source_offset) for record in converted
    ]


def test_text_keys_with_control_characters_write_jackson_s_escapes_as_on_the_connect_value_path(
    database: PostgresAddress,
) -> None:
    """Keys PostgreSQL writes with lower-case ``\\u00xx`` escapes, beside keys without any in the same
    page, carry the upper-case escapes the converter writes, in their keys and their values."""
    table = f"rows_{uuid.uuid4().hex[:8]}"
    names = ["plain", "\x01start", "end\x1f", "mid\x0bdle", "\\u001f", "other"]
    execute(database, f"CREATE TABLE {table} (name text PRIMARY KEY, n int)")
    for index, name in enumerate(names):
        execute(database, f"INSERT INTO {table} VALUES (%s, %s)", params=[name, index])
    try:
        _, expected = snapshot(database, table, len(names), False, {})
        encoded, written = snapshot(database, table, len(names), True, {})
    finally:
        execute(database, f"DROP TABLE {table}")
    assert all(type(record.value) is EncodedJson for record in encoded)
    assert [key for key, _ in written] == [key for key, _ in expected]
    assert [same_run_numbers(value) for _, value in written] == [
        same_run_numbers(value) for _, value in expected
    ]
    assert any(key is not None and b"\\u001F" in key for key, _ in written)
