"""PostgreSQL column types become Debezium's Connect schemas and values, read from a real server."""

from __future__ import annotations

import datetime as dt
import decimal
import struct
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
from conveyor.convert.encoded_json import DEFAULT_OPTIONS
from conveyor.convert.json_encode import compile_encoder, finish_json
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


def test_a_numeric_with_more_digits_than_python_s_default_decimal_precision_reads_whole(
    database: PostgresAddress,
) -> None:
    digits = "9" * 40 + "." + "1" * 20
    _, free = read_column(database, "numeric", f"-{digits}")
    assert decimal_from_variable_scale(free) == decimal.Decimal(f"-{digits}")
    _, fixed = read_column(database, "numeric(60, 20)", digits)
    assert fixed == decimal.Decimal(digits)


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


@pytest.mark.parametrize(
    ("literal", "name"),
    [("'NaN'", "NAN"), ("'Infinity'", "POSITIVE_INFINITY"), ("'-Infinity'", "NEGATIVE_INFINITY")],
)
def test_a_numeric_that_is_not_a_number_is_named_as_debezium_names_it_in_string_mode(
    database: PostgresAddress, literal: str, name: str
) -> None:
    options = TypeOptions(decimal_handling_mode=DecimalHandlingMode.STRING)
    assert read_column(database, "numeric", literal, options)[1] == name


def test_the_elements_of_a_numeric_array_with_precision_are_decimals_of_its_scale(
    database: PostgresAddress,
) -> None:
    schema, value = read_column(database, "numeric(6, 2)[]", "ARRAY[1.5, NULL]")
    assert schema.value_schema is not None
    assert dict(schema.value_schema.parameters) == {"scale": "2", "connect.decimal.precision": "6"}
    assert value == [decimal.Decimal("1.50"), None]


@pytest.mark.parametrize(
    ("declaration", "literal", "length", "value"),
    [
        ("bit(3)[]", "'{101,NULL,011}'", "3", [b"\x05", None, b"\x03"]),
        ("bit varying[]", "'{1,NULL,\"\",100000010}'", "2147483647", [b"\x01", None, b"", b"\x02\x01"]),
        ("bit varying(12)[]", "'{100000010,NULL}'", "12", [b"\x02\x01", None]),
    ],
)
def test_the_elements_of_a_bit_string_array_are_bits_of_the_column_s_length(
    database: PostgresAddress, declaration: str, literal: str, length: str, value: list[bytes | None]
) -> None:
    schema, read = read_column(database, declaration, literal)
    assert schema.value_schema is not None
    assert schema.value_schema.name == "io.debezium.data.Bits"
    assert dict(schema.value_schema.parameters) == {"length": length}
    assert read == value


def test_the_elements_of_a_single_bit_array_are_booleans(database: PostgresAddress) -> None:
    schema, value = read_column(database, "bit(1)[]", "'{1,NULL,0}'")
    assert schema.value_schema == Schema(Type.BOOLEAN, optional=True)
    assert value == [True, None, False]


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


def test_timetz_is_a_zoned_time_in_utc_with_as_few_fraction_digits_as_it_needs(
    database: PostgresAddress,
) -> None:
    schema, value = read_column(database, "timetz(3)", "'01:00:00.5-03'")
    assert schema.name == "io.debezium.time.ZonedTime"
    assert value == "04:00:00.5Z"
    assert read_column(database, "timetz", "'01:00:00+00'")[1] == "01:00:00Z"


def test_arrays_are_connect_arrays_of_optional_elements(database: PostgresAddress) -> None:
    schema, value = read_column(database, "text[]", "ARRAY['a b', NULL, 'c,\"d']")
    assert schema.type is Type.ARRAY and schema.value_schema == Schema(Type.STRING, optional=True)
    assert value == ["a b", None, 'c,"d']


def test_array_elements_keep_the_unicode_spaces_postgres_writes_unquoted(database: PostgresAddress) -> None:
    _, value = read_column(database, "text[]", "ARRAY[E'\\u00a0', E'a\\u2003', ' b ']")
    assert value == ["\u00a0", "a\u2003", " b "]


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
        ("0900-06-01 02:00:00+02", 0, "0900-06-01T00:00:00Z"),
        ("0044-03-15 10:00:00.25+00 BC", 6, "-0043-03-15T10:00:00.250000Z"),
        ("0001-01-01 01:00:00+02 BC", 3, "-0001-12-31T23:00:00.000Z"),
        ("0001-12-31 23:59:59+00 BC", 0, "0000-12-31T23:59:59Z"),
        ("10000-01-01 00:00:00-01", 0, "+10000-01-01T01:00:00Z"),
        ("294276-12-31 23:59:59.999999+00", 6, "+294276-12-31T23:59:59.999999Z"),
    ],
)
def test_a_zoned_timestamp_is_the_instant_in_utc_whatever_the_server_s_time_zone(
    text: str, digits: int, expected: str
) -> None:
    assert zoned_timestamp(text, digits) == expected


@pytest.mark.parametrize(
    ("column_type", "text", "expected"),
    [
        ("date", "4713-01-01 BC", -2440550),  # Julian day 38 (day 0 is 4714-11-24 BC, proleptic Gregorian)
        ("date", "0001-12-31 BC", -719163),
        ("date", "0001-01-01 BC", -719528),  # 1 BC is a leap year: 366 days before 0001-01-01
        ("date", "0001-01-01", -719162),
        ("date", "9999-12-31", 2932896),
        ("date", "10000-01-01", 2932897),
        ("date", "5874897-12-31", 2145042905),
        ("timestamp", "0001-12-31 23:59:59.999999 BC", -62135596800000001),
        ("timestamp", "294247-01-10 04:00:54.775807", 2**63 - 1),
        ("timestamp(3)", "294276-12-31 23:59:59.999", 9224318015999999),
    ],
)
def test_dates_and_timestamps_bc_and_after_9999_count_from_the_epoch_in_the_proleptic_calendar(
    database: PostgresAddress, column_type: str, text: str, expected: int
) -> None:
    _, value = read_column(database, column_type, f"'{text}'")
    assert value == expected


def test_the_largest_real_is_read_as_itself_not_beyond_float32_s_range(database: PostgresAddress) -> None:
    """Its shortest text, ``3.4028235e+38``, read as a double lies above it: the float32 is kept exact, so
    the converter writes ``3.4028235E38`` as Java does rather than an infinity."""
    largest = struct.unpack(">f", bytes.fromhex("7f7fffff"))[0]
    schema, value = read_column(database, "real", "'3.4028235e38'")
    assert value == largest
    assert finish_json(compile_encoder(schema, DEFAULT_OPTIONS)(value)) == "3.4028235E38"
