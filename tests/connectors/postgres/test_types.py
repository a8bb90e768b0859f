"""PostgreSQL column types become Debezium's Connect schemas and values, read from a real server."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterator
from typing import Any

import pytest
from tests.connectors.postgres.databases import execute, fresh_database

from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.connectors.postgres.types import (
    DecimalHandlingMode,
    TimePrecisionMode,
    TypeOptions,
    UnsupportedTypeError,
    column_mapping,
    decimal_from_variable_scale,
    load_types,
    read_as_text,
    zoned_timestamp,
)
from conveyor.data import Schema, Type
from conveyor.postgres_server import PostgresServer


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "types") as target:
        execute(target, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
        yield target


def read_column(
    target: PostgresAddress, declaration: str, literal: str, options: TypeOptions | None = None
) -> tuple[Schema, Any]:
    """The schema and Connect value of ``literal`` stored in a column declared ``declaration``."""
    connection = connect(target)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS probe")
            cursor.execute(f"CREATE TABLE probe (c {declaration})")
            cursor.execute(f"INSERT INTO probe VALUES ({literal})")
            cursor.execute(
                "SELECT atttypid, atttypmod, attnotnull FROM pg_attribute "
                "WHERE attrelid = 'probe'::regclass AND attname = 'c'"
            )
            oid, modifier, not_null = cursor.fetchone()
            types = load_types(cursor)
            read_as_text(connection, [oid])
            cursor.execute("SELECT c FROM probe")
            (text,) = cursor.fetchone()
    finally:
        connection.close()
    mapping = column_mapping(types[oid], modifier, not not_null, options or TypeOptions())
    return mapping.schema, mapping.value(text)


@pytest.mark.parametrize(
    ("declaration", "literal", "schema_type", "value"),
    [
        ("smallint", "-7", Type.INT16, -7),
        ("integer", "2147483647", Type.INT32, 2147483647),
        ("bigint", "-9223372036854775808", Type.INT64, -9223372036854775808),
        ("real", "1.5", Type.FLOAT32, 1.5),
        ("double precision", "2.25", Type.FLOAT64, 2.25),
        ("boolean", "true", Type.BOOLEAN, True),
        ("text", "'héllo'", Type.STRING, "héllo"),
        ("varchar(10)", "'v'", Type.STRING, "v"),
        ("char(3)", "'ab'", Type.STRING, "ab "),
        ("bytea", "'\\x00ff10'::bytea", Type.BYTES, b"\x00\xff\x10"),
    ],
)
def test_plain_types_map_to_connect_primitives(
    database: PostgresAddress, declaration: str, literal: str, schema_type: Type, value: Any
) -> None:
    schema, converted = read_column(database, declaration, literal)
    assert (schema.type, schema.name, schema.optional) == (schema_type, None, True)
    assert converted == value


@pytest.mark.parametrize(
    ("declaration", "literal", "name", "value"),
    [
        (
            "uuid",
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
            "io.debezium.data.Uuid",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ),
        ("json", "'{\"a\": 1}'", "io.debezium.data.Json", '{"a": 1}'),
        ("jsonb", "'{\"a\":   1}'", "io.debezium.data.Json", '{"a": 1}'),
        ("mood", "'happy'", "io.debezium.data.Enum", "happy"),
        ("interval", "'1 day 01:00:00'", "io.debezium.time.MicroDuration", 90_000_000_000),
    ],
)
def test_semantic_types_carry_debezium_s_schema_names(
    database: PostgresAddress, declaration: str, literal: str, name: str, value: Any
) -> None:
    schema, converted = read_column(database, declaration, literal)
    assert (schema.name, schema.version) == (name, 1)
    assert converted == value


def test_an_enum_lists_its_allowed_labels(database: PostgresAddress) -> None:
    schema, _ = read_column(database, "mood", "'ok'")
    assert dict(schema.parameters) == {"allowed": "sad,ok,happy"}


def test_a_not_null_column_is_required(database: PostgresAddress) -> None:
    schema, _ = read_column(database, "integer NOT NULL", "1")
    assert not schema.optional


def test_numeric_with_precision_is_a_connect_decimal_with_its_scale_and_precision(
    database: PostgresAddress,
) -> None:
    schema, value = read_column(database, "numeric(10, 3)", "12.5")
    assert schema.name == "org.apache.kafka.connect.data.Decimal"
    assert dict(schema.parameters) == {"scale": "3", "connect.decimal.precision": "10"}
    assert value == decimal.Decimal("12.500") and value.as_tuple().exponent == -3


def test_numeric_without_precision_is_a_variable_scale_decimal(database: PostgresAddress) -> None:
    schema, value = read_column(database, "numeric", "-1234.5678")
    assert schema.name == "io.debezium.data.VariableScaleDecimal"
    assert value.schema == schema
    assert value.get("scale") == 4
    assert decimal_from_variable_scale(value) == decimal.Decimal("-1234.5678")


@pytest.mark.parametrize(
    ("mode", "schema_type", "value"),
    [(DecimalHandlingMode.DOUBLE, Type.FLOAT64, 12.5), (DecimalHandlingMode.STRING, Type.STRING, "12.500")],
)
def test_decimal_handling_mode_double_and_string(
    database: PostgresAddress, mode: DecimalHandlingMode, schema_type: Type, value: Any
) -> None:
    schema, converted = read_column(
        database, "numeric(10, 3)", "12.5", TypeOptions(decimal_handling_mode=mode)
    )
    assert (schema.type, schema.name) == (schema_type, None)
    assert converted == value


def test_money_is_a_decimal_of_two_digits(database: PostgresAddress) -> None:
    schema, value = read_column(database, "money", "'-1234.5'")
    assert schema.name == "org.apache.kafka.connect.data.Decimal"
    assert value == decimal.Decimal("-1234.50")


@pytest.mark.parametrize(
    ("declaration", "literal", "mode", "name", "value"),
    [
        ("date", "'2024-02-29'", TimePrecisionMode.ADAPTIVE, "io.debezium.time.Date", 19782),
        ("time(3)", "'01:02:03.456'", TimePrecisionMode.ADAPTIVE, "io.debezium.time.Time", 3_723_456),
        (
            "time",
            "'01:02:03.456789'",
            TimePrecisionMode.ADAPTIVE,
            "io.debezium.time.MicroTime",
            3_723_456_789,
        ),
        (
            "time(3)",
            "'01:02:03.456'",
            TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS,
            "io.debezium.time.MicroTime",
            3_723_456_000,
        ),
        (
            "timestamp(3)",
            "'2024-01-01 00:00:01.5'",
            TimePrecisionMode.ADAPTIVE,
            "io.debezium.time.Timestamp",
            1_704_067_201_500,
        ),
        (
            "timestamp",
            "'2024-01-01 00:00:01.000002'",
            TimePrecisionMode.ADAPTIVE,
            "io.debezium.time.MicroTimestamp",
            1_704_067_201_000_002,
        ),
        (
            "date",
            "'2024-02-29'",
            TimePrecisionMode.CONNECT,
            "org.apache.kafka.connect.data.Date",
            dt.date(2024, 2, 29),
        ),
        (
            "time",
            "'01:02:03.456789'",
            TimePrecisionMode.CONNECT,
            "org.apache.kafka.connect.data.Time",
            dt.time(1, 2, 3, 456789),
        ),
        (
            "timestamp",
            "'2024-01-01 00:00:01.5'",
            TimePrecisionMode.CONNECT,
            "org.apache.kafka.connect.data.Timestamp",
            dt.datetime(2024, 1, 1, 0, 0, 1, 500000, dt.UTC),
        ),
    ],
)
def test_time_precision_modes(
    database: PostgresAddress, declaration: str, literal: str, mode: TimePrecisionMode, name: str, value: Any
) -> None:
    schema, converted = read_column(database, declaration, literal, TypeOptions(time_precision_mode=mode))
    assert schema.name == name
    assert converted == value


def test_timestamptz_is_a_zoned_timestamp_in_utc(database: PostgresAddress) -> None:
    schema, value = read_column(database, "timestamptz", "'2024-01-01 02:30:00.25+02:00'")
    assert schema.name == "io.debezium.time.ZonedTimestamp"
    assert value == "2024-01-01T00:30:00.250000Z"


def test_timetz_is_a_zoned_time_in_utc(database: PostgresAddress) -> None:
    schema, value = read_column(database, "timetz(3)", "'01:00:00.5-03'")
    assert schema.name == "io.debezium.time.ZonedTime"
    assert value == "04:00:00.500Z"


def test_arrays_are_connect_arrays_of_optional_elements(database: PostgresAddress) -> None:
    schema, value = read_column(database, "text[]", "ARRAY['a b', NULL, 'c,\"d']")
    assert schema.type is Type.ARRAY and schema.value_schema == Schema(Type.STRING, optional=True)
    assert value == ["a b", None, 'c,"d']


def test_arrays_of_integers(database: PostgresAddress) -> None:
    schema, value = read_column(database, "integer[]", "'{1,2,3}'")
    assert schema.value_schema is not None and schema.value_schema.type is Type.INT32
    assert value == [1, 2, 3]


def test_a_type_without_mapping_says_how_to_leave_it_out(database: PostgresAddress) -> None:
    with pytest.raises(UnsupportedTypeError, match=r"column\.exclude\.list"):
        read_column(database, "point", "'(1,2)'")


@pytest.mark.parametrize(
    ("text", "digits", "expected"),
    [
        ("2024-01-01 00:30:00.25+00", 6, "2024-01-01T00:30:00.250000Z"),
        ("2024-01-01 02:30:00.25+02", 6, "2024-01-01T00:30:00.250000Z"),
        ("2024-01-01 02:30:00+05:30", 3, "2023-12-31T21:00:00.000Z"),
        ("2024-01-01 00:00:00.123456+00", 0, "2024-01-01T00:00:00Z"),
    ],
)
def test_a_zoned_timestamp_is_the_instant_in_utc_whatever_the_server_s_time_zone(
    text: str, digits: int, expected: str
) -> None:
    assert zoned_timestamp(text, digits) == expected
