"""The SQL expressions with which PostgreSQL writes floats, dates and times, intervals, bytea and numerics
as the JSON converter writes their Connect values: for each type and setting, the JSON PostgreSQL writes
of a column's values is the converter's JSON of the value the Connect value path reads from its text, and
the values that path refuses make PostgreSQL refuse them too."""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator
from typing import Any

import psycopg2
import pytest
from psycopg2 import sql
from tests.connectors.postgres.databases import fresh_database

from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.connectors.postgres.snapshot_json import json_expression
from conveyor.connectors.postgres.snapshot_json_types import refused_reason
from conveyor.connectors.postgres.types import (
    DecimalHandlingMode,
    PgType,
    TimePrecisionMode,
    TypeOptions,
    column_mapping,
    load_types,
    read_as_text,
)
from conveyor.convert.encoded_json import DEFAULT_OPTIONS
from conveyor.convert.json_encode import compile_encoder, finish_json
from conveyor.errors import ConnectError
from conveyor.postgres_server import PostgresServer

random.seed(20)
RANDOM_DOUBLES = [
    repr(struct.unpack(">d", struct.pack(">Q", random.getrandbits(64)))[0]) for _ in range(3000)
]
DOUBLES = [
    "0", "-0", "1", "-1", "0.1", "100", "1234567", "9999999.999999998", "10000000", "1e7", "12345678.5",
    "0.001", "0.00099999999999999", "0.0001", "0.00012345", "1e-5", "-1.5e-300", "5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308", "1e15", "123456789012345", "1e16", "1e22", "-4.35e21", "NaN", "Infinity",
    "-Infinity", "3.141592653589793", "0.30000000000000004", "-3.2672036470529712e16", "4503599627370496",
    "4503599627370497", "9007199254740993", "1e23", "9.999999999999999e22", "1.7976931348623157e308",
    "-2.2250738585072014e-308", "123456789012345680", *RANDOM_DOUBLES,
]  # fmt: skip
DATES = ["1970-01-01", "2024-02-29", "1900-02-28", "0001-01-01", "9999-12-31", "1969-12-31", "2000-03-01"]
TIMES = ["00:00:00", "23:59:59.999999", "24:00:00", "12:34:56.5", "00:00:00.000001", "10:11:12.345678"]
TIMESTAMPS = [
    "1970-01-01 00:00:00", "2024-02-29 10:11:12.123456", "0001-01-01 00:00:00", "9999-12-31 23:59:58.25",
    "1969-12-31 23:59:59.999999", "1900-01-01 00:00:00.5", "2000-02-29 00:00:00.000001",
]  # fmt: skip
ZONED = [
    "2024-02-29 10:11:12.123456+02", "1970-01-01 00:00:00+00", "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:58.25+00", "1969-12-31 23:59:59.5-05:30", "2000-01-01 00:00:00+14",
]  # fmt: skip
ERA_DATES = [
    "4713-01-01 BC", "4713-12-31 BC", "0044-03-15 BC", "0001-02-29 BC", "0001-12-31 BC", "0001-01-01",
    "9999-12-31", "10000-01-01", "12345-06-07", "5874897-12-31",
]  # fmt: skip
ERA_TIMESTAMPS = [
    "4713-01-01 00:00:00 BC", "0044-03-15 10:00:00.25 BC", "0001-12-31 23:59:59.999999 BC",
    "0001-01-01 00:00:00", "9999-12-31 23:59:59.999999", "10000-01-01 00:00:00", "12345-06-07 08:09:10.5",
    "294247-01-10 04:00:54.775807",
]  # fmt: skip
LAST_TIMESTAMP = "294276-12-31 23:59:59.999999"
"""PostgreSQL's last ``timestamp``, beyond the microseconds since the epoch a Java long holds."""
ERA_ZONED = [
    "4713-01-01 00:00:00+00 BC", "4713-01-02 00:00:00.5+02 BC", "0044-03-15 10:00:00.25+00 BC",
    "0001-12-31 23:59:59.999999+00 BC", "0001-01-01 00:00:00-01", "9999-12-31 23:59:59.5-03",
    "10000-01-01 00:00:00+00", "12345-06-07 08:09:10.5+00", "294276-12-31 23:59:59+00",
]  # fmt: skip
ADAPTIVE_MODES = [TimePrecisionMode.ADAPTIVE, TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS]
ZONED_TIMES = ["10:11:12.123456+02", "00:00:00+00", "24:00:00+00", "23:30:00-05:30", "01:00:00+05:30:15"]
INTERVALS = [
    "0", "1 year 2 mons 3 days 04:05:06.789", "-1 years -2 mons +3 days -04:05:06.789", "1 mon", "-1 mon",
    "100:00:00", "00:00:00.000001", "10000 years", "-10000 years 1 day", "7 mons 1 day 00:00:00.5",
]  # fmt: skip
BYTES = ["", "\\x00", "\\xff", "\\x" + "ab" * 100, "\\x00ff10", "\\x" + "07" * 57, "\\x" + "07" * 58]
NUMERICS = [
    "0", "0.000", "1.5", "-1.5", "-0.0050", "127", "128", "-128", "-129", "255", "256", "32767", "-32768",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "123456789012345678",
    "-123456789012345678", "1234567890123456789", "-1234567890123456789.123",
    "1" + "0" * 60, "-" + "9" * 80 + "." + "1" * 20, "0." + "0" * 200 + "1", "-0." + "0" * 30 + "7",
]  # fmt: skip
FIXED = ["0.00", "1.50", "-1.50", "12345678901234567.89", "-12345678901234567.89", "1.27", "-1.28", "0.01"]
WIDE = ["0.0000", "123456789012345678901234.5678", "-123456789012345678901234.5678", "-0.0001", "1.2800"]
BITS = [
    "", "0", "1", "101", "00000000", "11111111", "100000001", "0000000010", "1" * 64, "0" * 63 + "1",
    "1" + "0" * 70, "10" * 300,
]  # fmt: skip
HUGE_DOUBLES = [
    "1" + "0" * 308, "-" + "1" + "0" * 308, "2" + "0" * 308, "-3" + "0" * 309, "0." + "0" * 330 + "1",
    "-0." + "0" * 330 + "1", "0." + "0" * 322 + "3", "0." + "0" * 323 + "24703282292062327208828439643411",
    "0." + "0" * 323 + "24703282292062327208828439643412", "123.456", "NaN", "Infinity", "-Infinity",
]  # fmt: skip


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jsontypes") as target:
        yield target


def written(
    database: PostgresAddress, column_type: str, values: list[str | None], options: TypeOptions
) -> list[tuple[str, str]]:
    """Per value: the converter's JSON of what the Connect value path reads, and PostgreSQL's JSON."""
    connection = connect(database)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET extra_float_digits = 1")
            cursor.execute(f"CREATE TEMPORARY TABLE sample (n int, v {column_type})")
            cursor.executemany("INSERT INTO sample VALUES (%s, %s)", list(enumerate(values)))
            cursor.execute(
                "SELECT atttypid, atttypmod FROM pg_attribute WHERE attrelid = 'sample'::regclass "
                "AND attname = 'v'"
            )
            row = cursor.fetchone()
            assert row is not None
            type_oid, modifier = row
            pg_type: PgType = load_types(cursor)[type_oid]
            expression = json_expression(
                pg_type, modifier, options, sql.SQL("sample.v"), connection.server_version
            )
            assert expression is not None, column_type
            read_as_text(connection, [type_oid])
            cursor.execute(
                sql.SQL(
                    "SELECT sample.v, row_to_json(j)::text FROM sample, LATERAL (SELECT {} AS v) AS j "
                    "ORDER BY n"
                ).format(expression)
            )
            rows = cursor.fetchall()
    finally:
        connection.rollback()
        connection.close()
    mapping = column_mapping(pg_type, modifier, True, options)
    encode = compile_encoder(mapping.schema, DEFAULT_OPTIONS)
    return [(finish_json(encode(mapping.value(text))), json[len('{"v":') : -1]) for text, json in rows]


def refused(database: PostgresAddress, column_type: str, value: str, options: TypeOptions) -> str | None:
    """The reason PostgreSQL gives for refusing ``value`` in the expression, or None if it writes it."""
    try:
        written(database, column_type, [value], options)
    except psycopg2.Error as error:
        return refused_reason(str(error))
    return None


def test_double_precision_is_written_as_java_writes_a_double(database: PostgresAddress) -> None:
    found = written(database, "float8", [*DOUBLES, None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize("mode", list(TimePrecisionMode))
@pytest.mark.parametrize(
    ("column_type", "values"),
    [
        ("date", DATES),
        ("time", TIMES),
        ("time(3)", TIMES),
        ("time(0)", TIMES),
        ("timestamp", TIMESTAMPS),
        ("timestamp(3)", TIMESTAMPS),
        ("timestamp(1)", TIMESTAMPS),
        ("timestamptz", ZONED),
        ("timestamptz(2)", ZONED),
        ("timestamptz(0)", ZONED),
        ("timetz", ZONED_TIMES),
        ("timetz(3)", ZONED_TIMES),
        ("interval", INTERVALS),
    ],
)
def test_dates_and_times_are_written_as_their_connect_values(
    database: PostgresAddress, column_type: str, values: list[str], mode: TimePrecisionMode
) -> None:
    found = written(database, column_type, [*values, None], TypeOptions(time_precision_mode=mode))
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize("mode", ADAPTIVE_MODES)
@pytest.mark.parametrize(
    ("column_type", "values"),
    [
        ("date", ERA_DATES),
        ("timestamp", ERA_TIMESTAMPS),
        ("timestamp(3)", [*ERA_TIMESTAMPS, LAST_TIMESTAMP]),
        ("timestamp(0)", [*ERA_TIMESTAMPS, LAST_TIMESTAMP]),
    ],
)
def test_dates_and_timestamps_bc_and_after_9999_are_written_as_their_connect_values(
    database: PostgresAddress, column_type: str, values: list[str], mode: TimePrecisionMode
) -> None:
    found = written(database, column_type, values, TypeOptions(time_precision_mode=mode))
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize(
    ("column_type", "value", "mode"),
    [
        *(
            (column_type, value, mode)
            for column_type in ("date", "timestamp")
            for value in ("infinity", "-infinity")
            for mode in TimePrecisionMode
        ),
        *(
            (column_type, value, TimePrecisionMode.CONNECT)
            for column_type in ("date", "timestamp")
            for value in ("0001-12-31 BC", "10000-01-01")
        ),
        ("timestamp", LAST_TIMESTAMP, TimePrecisionMode.ADAPTIVE),
        ("timestamp(6)", "294247-01-10 04:00:54.775808", TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS),
    ],
)
def test_dates_the_connect_value_path_refuses_are_refused(
    database: PostgresAddress, column_type: str, value: str, mode: TimePrecisionMode
) -> None:
    """Infinite dates and timestamps in every mode, those outside years 1 to 9999 as ``connect``'s
    Python values, and microseconds beyond a Java long."""
    options = TypeOptions(time_precision_mode=mode)
    modifier = int(column_type[-2]) if column_type.endswith(")") else -1
    with pytest.raises(ConnectError) as cursor_path:
        column_mapping(PgType(0, column_type.split("(")[0]), modifier, True, options).value(
            _text_form(database, column_type, value)
        )
    reason = refused(database, column_type, value, options)
    assert reason is not None
    assert reason in str(cursor_path.value)


@pytest.mark.parametrize("mode", list(TimePrecisionMode))
@pytest.mark.parametrize("column_type", ["timestamptz", "timestamptz(3)", "timestamptz(0)"])
def test_timestamptz_bc_and_after_9999_is_written_as_its_connect_value(
    database: PostgresAddress, column_type: str, mode: TimePrecisionMode
) -> None:
    found = written(database, column_type, ERA_ZONED, TypeOptions(time_precision_mode=mode))
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


def test_an_infinite_timestamptz_is_written_as_debezium_writes_it(database: PostgresAddress) -> None:
    found = written(
        database, "timestamptz", ["infinity", "-infinity", "2024-01-01 00:00:00+00"], TypeOptions()
    )
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]
    assert [ours for _, ours in found][:2] == ['"infinity"', '"-infinity"']


def test_bytea_is_written_as_base64_on_one_line(database: PostgresAddress) -> None:
    found = written(database, "bytea", [*BYTES, None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize(
    ("column_type", "values"),
    [("numeric", NUMERICS), ("numeric(20, 2)", FIXED), ("numeric(3, 2)", ["1.27", "-1.28", "0.00", "9.99"]),
     ("numeric(30, 4)", WIDE), ("numeric(5, 0)", ["0", "-1", "99999", "-99999", "128"])],
)  # fmt: skip
def test_numerics_are_written_as_decimals(
    database: PostgresAddress, column_type: str, values: list[str]
) -> None:
    found = written(database, column_type, [*values, None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize(
    ("column_type", "value"),
    [("numeric", "NaN"), ("numeric", "Infinity"), ("numeric", "-Infinity"), ("numeric(10, 2)", "NaN")],
)
def test_numerics_a_decimal_cannot_hold_are_refused(
    database: PostgresAddress, column_type: str, value: str
) -> None:
    reason = refused(database, column_type, value, TypeOptions())
    assert reason is not None and "decimal.handling.mode" in reason


def test_numerics_are_written_as_the_nearest_double_in_double_mode(database: PostgresAddress) -> None:
    values = [*HUGE_DOUBLES, *NUMERICS, *(d for d in DOUBLES if "e" not in d and "Inf" not in d), None]
    found = written(
        database, "numeric", values, TypeOptions(decimal_handling_mode=DecimalHandlingMode.DOUBLE)
    )
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


def test_numerics_in_string_mode_are_their_text_or_debezium_s_names_of_nan_and_the_infinities(
    database: PostgresAddress,
) -> None:
    values = ["1.50", "-0", "NaN", "Infinity", "-Infinity", None]
    options = TypeOptions(decimal_handling_mode=DecimalHandlingMode.STRING)
    found = written(database, "numeric", values, options)
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]
    assert [ours for _, ours in found][2:5] == ['"NAN"', '"POSITIVE_INFINITY"', '"NEGATIVE_INFINITY"']


@pytest.mark.parametrize(
    ("column_type", "values"),
    [
        ("float8[]", ["{}", "{NULL}", "{1.5,NaN,-0,1e300,NULL}", "{{1,2},{3,4}}", "[2:3]={7,8}"]),
        ("timestamptz[]", ["{}", '{"2024-01-01 00:00:00+02",NULL}']),
        ("timestamp(3)[]", ['{"2024-01-01 00:00:00.123456"}']),
        ("bytea[]", ["{}", '{"\\\\x00ff",NULL,"\\\\x"}']),
        ("numeric[]", ["{1.50,-2,NULL}"]),
        ("numeric(6, 2)[]", ["{1.5,-2,NULL}"]),
        ("text[]", ["{}", '{"a b",NULL,"NULL","q\\"uote",""}', "{{a,b},{c,d}}"]),
        ("integer[]", ["{}", "{1,NULL,-3}"]),
        ("jsonb[]", ['{"{\\"a\\": 1}",NULL}']),
        ("interval[]", ['{"1 mon","-1 day"}']),
        ("bit(1)[]", ["{}", "{1,0,NULL}"]),
        ("bit(3)[]", ["{101,NULL,111,000}"]),
        ("bit varying[]", ["{}", '{"",101,NULL,111111111}', "{{1,0},{11,NULL}}"]),
    ],
)
def test_arrays_are_written_element_by_element_flattened(
    database: PostgresAddress, column_type: str, values: list[str]
) -> None:
    found = written(database, column_type, [*values, None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


@pytest.mark.parametrize("column_type", ["bit", "bit(1)"])
def test_a_single_bit_is_written_as_a_boolean(database: PostgresAddress, column_type: str) -> None:
    found = written(database, column_type, ["0", "1", None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]
    assert [ours for _, ours in found] == ["false", "true", "null"]


@pytest.mark.parametrize(
    ("column_type", "values"),
    [
        ("bit(8)", ["00000000", "11111111", "10000001", "00000001"]),
        ("bit(5)", ["10110", "11111", "00000", "00001"]),
        ("bit(70)", ["1" * 70, "1" + "0" * 69, "0" * 69 + "1", "01" * 35]),
        ("bit varying", BITS),
        ("bit varying(10)", ["", "1", "1111111111", "0000000001", "1000000000"]),
    ],
)
def test_bit_strings_are_written_as_the_base64_of_their_little_endian_bytes(
    database: PostgresAddress, column_type: str, values: list[str]
) -> None:
    found = written(database, column_type, [*values, None], TypeOptions())
    assert [theirs for theirs, _ in found] == [ours for _, ours in found]


def test_a_bit_string_s_bytes_are_its_integer_little_endian(database: PostgresAddress) -> None:
    """``100000010`` is 258: bytes 02 01, as Debezium's ``Bits`` writes it; the empty string, no bytes."""
    found = written(database, "bit varying", ["100000010", ""], TypeOptions())
    assert [ours for _, ours in found] == ['"AgE="', '""']


@pytest.mark.parametrize(
    ("column_type", "value", "expected"),
    [
        ("bit(3)[]", "{101,NULL,011}", '["BQ==",null,"Aw=="]'),
        ("bit(1)[]", "{1,NULL,0}", "[true,null,false]"),
        ("bit varying[]", '{1,NULL,"",100000010}', '["AQ==",null,"","AgE="]'),
        ("bit varying(4)[]", "{1010,NULL}", '["Cg==",null]'),
    ],
)
def test_the_elements_of_a_bit_string_array_are_bit_strings_of_the_column_s_length(
    database: PostgresAddress, column_type: str, value: str, expected: str
) -> None:
    """PostgreSQL keeps an array column's length on the column, not on its elements: a ``bit(3)[]``'s
    elements are ``Bits``, not the booleans of a ``bit(1)``."""
    found = written(database, column_type, [value], TypeOptions())
    assert found == [(expected, expected)]


def test_real_keeps_the_connect_value_path(database: PostgresAddress) -> None:
    """PostgreSQL's shortest digits of a ``real`` differ from the converter's for some powers of two."""
    assert json_expression(PgType(700, "float4"), -1, TypeOptions(), sql.SQL("v"), 150000) is None


def test_servers_before_14_keep_the_connect_value_path_for_the_new_types() -> None:
    for name in ("float8", "timestamp", "bytea", "numeric"):
        assert json_expression(PgType(0, name), -1, TypeOptions(), sql.SQL("v"), 130000) is None


def _text_form(database: PostgresAddress, column_type: str, value: str) -> Any:
    connection = connect(database)
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT %s::{column_type}::text", (value,))
            row = cursor.fetchone()
            assert row is not None
            return row[0]
    finally:
        connection.close()
