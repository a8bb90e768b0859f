import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.api import ConfigError
from conveyor.convert import (
    BUILTIN_CONVERTERS,
    BooleanConverter,
    ByteArrayConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
    SimpleHeaderConverter,
    StringConverter,
)
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Date,
    SchemaAndValue,
    Timestamp,
)


def test_string_converter_writes_utf8_and_reads_an_optional_string() -> None:
    converter = StringConverter()
    converter.configure({}, is_key=False)
    assert converter.from_connect_data("t", STRING_SCHEMA, "héllo") == "héllo".encode()
    assert converter.to_connect_data("t", "héllo".encode()) == SchemaAndValue(OPTIONAL_STRING_SCHEMA, "héllo")


def test_string_converter_uses_the_configured_encoding() -> None:
    converter = StringConverter()
    converter.configure({"converter.encoding": "UTF-16"}, is_key=True)
    assert converter.to_connect_data("t", converter.from_connect_data("t", None, "x")).value == "x"
    assert converter.from_connect_data("t", None, "x") == "x".encode("utf-16")


def test_string_converter_refuses_an_unknown_encoding() -> None:
    with pytest.raises(ConfigError, match=r"converter\.encoding"):
        StringConverter().configure({"converter.encoding": "no-such-encoding"}, is_key=False)


def test_string_converter_writes_other_values_as_their_text() -> None:
    converter = StringConverter()
    assert converter.from_connect_batch("t", None, [12, None, True]) == [b"12", None, b"True"]


def test_byte_array_converter_passes_bytes_through() -> None:
    converter = ByteArrayConverter()
    assert converter.from_connect_data("t", None, b"\x00\x01") == b"\x00\x01"
    assert converter.to_connect_data("t", b"\x00\x01") == SchemaAndValue(OPTIONAL_BYTES_SCHEMA, b"\x00\x01")


def test_byte_array_converter_refuses_a_non_bytes_schema() -> None:
    with pytest.raises(DataError, match="INT32"):
        ByteArrayConverter().from_connect_data("t", INT32_SCHEMA, b"x")


@pytest.mark.parametrize(
    ("converter", "value", "raw"),
    [
        (ShortConverter(), -2, b"\xff\xfe"),
        (IntegerConverter(), 1, b"\x00\x00\x00\x01"),
        (LongConverter(), 2**40, b"\x00\x00\x01\x00\x00\x00\x00\x00"),
        (FloatConverter(), 1.5, b"\x3f\xc0\x00\x00"),
        (DoubleConverter(), -2.0, b"\xc0\x00\x00\x00\x00\x00\x00\x00"),
        (BooleanConverter(), True, b"\x01"),
    ],
)
def test_number_converters_write_big_endian_as_kafkas_serializers(converter, value, raw) -> None:  # type: ignore[no-untyped-def]
    assert converter.from_connect_data("t", None, value) == raw
    assert converter.to_connect_data("t", raw).value == value


def test_integer_converter_reads_an_optional_int32() -> None:
    assert IntegerConverter().to_connect_data("t", b"\x00\x00\x00\x07") == SchemaAndValue(
        OPTIONAL_INT32_SCHEMA, 7
    )


def test_integer_converter_refuses_data_of_the_wrong_size() -> None:
    with pytest.raises(DataError, match="not 4"):
        IntegerConverter().to_connect_data("t", b"\x00\x01")


def test_integer_converter_refuses_a_value_out_of_range() -> None:
    with pytest.raises(DataError, match="INT32"):
        IntegerConverter().from_connect_data("t", None, 2**31)


def test_boolean_converter_refuses_bytes_other_than_zero_and_one() -> None:
    with pytest.raises(DataError, match="BOOLEAN"):
        BooleanConverter().to_connect_data("t", b"\x02")


def test_number_converters_keep_nulls() -> None:
    assert LongConverter().from_connect_data("t", None, None) is None
    assert LongConverter().to_connect_data("t", None).value is None


@pytest.mark.parametrize("converter_class", [StringConverter, ByteArrayConverter, LongConverter])
def test_is_key_overrides_converter_type_as_kafkas_two_argument_configure(converter_class) -> None:  # type: ignore[no-untyped-def]
    converter = converter_class()
    converter.configure({"converter.type": "header"}, is_key=True)
    assert converter.is_key


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", SchemaAndValue(BOOLEAN_SCHEMA, True)),
        ("12", SchemaAndValue(INT8_SCHEMA, 12)),
        ("100000", SchemaAndValue(INT32_SCHEMA, 100000)),
        ("10000000000", SchemaAndValue(INT64_SCHEMA, 10000000000)),
        ("1.5", SchemaAndValue(FLOAT32_SCHEMA, 1.5)),
        ("2024-01-02", SchemaAndValue(Date.SCHEMA, dt.date(2024, 1, 2))),
        (
            "2024-01-02T03:04:05.006Z",
            SchemaAndValue(Timestamp.SCHEMA, dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)),
        ),
        ("hello world", SchemaAndValue(STRING_SCHEMA, "hello world")),
        ("", SchemaAndValue(STRING_SCHEMA, "")),
    ],
)
def test_simple_header_converter_infers_the_narrowest_type(text: str, expected: SchemaAndValue) -> None:
    assert SimpleHeaderConverter().to_connect_header("t", "h", text.encode()) == expected


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (INT32_SCHEMA, 100000),
        (BOOLEAN_SCHEMA, False),
        (STRING_SCHEMA, "plain text"),
        (Date.SCHEMA, dt.date(2020, 2, 29)),
        (Timestamp.SCHEMA, dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)),
    ],
)
def test_simple_header_converter_round_trips_typed_values(schema, value) -> None:  # type: ignore[no-untyped-def]
    converter = SimpleHeaderConverter()
    written = converter.from_connect_header("t", "h", schema, value)
    assert converter.to_connect_header("t", "h", written) == SchemaAndValue(schema, value)


def test_simple_header_converter_writes_doubles_as_java_does() -> None:
    assert SimpleHeaderConverter().from_connect_header("t", "h", None, 1e10) == b"1.0E10"


def test_simple_header_converter_reads_numbers_beyond_float32_as_float64() -> None:
    assert SimpleHeaderConverter().to_connect_header("t", "h", b"1e300") == SchemaAndValue(
        FLOAT64_SCHEMA, 1e300
    )


def test_registry_names_every_builtin_by_kafkas_simple_name() -> None:
    assert set(BUILTIN_CONVERTERS) == {
        "JsonConverter",
        "StringConverter",
        "ByteArrayConverter",
        "ShortConverter",
        "IntegerConverter",
        "LongConverter",
        "FloatConverter",
        "DoubleConverter",
        "BooleanConverter",
        "SimpleHeaderConverter",
    }


def test_string_converter_reads_a_column_as_its_single_values() -> None:
    converter = StringConverter()
    converter.configure({}, is_key=False)
    raw = [b"caf\xc3\xa9", None, b"bad \xff byte"]
    schemas, values = converter.to_connect_columns("t", raw)
    assert list(zip(schemas, values, strict=True)) == [converter.to_connect_data("t", r) for r in raw]
    assert values == ["café", None, "bad \ufffd byte"]


def test_byte_array_converter_reads_a_column_unchanged() -> None:
    converter = ByteArrayConverter()
    converter.configure({}, is_key=False)
    schemas, values = converter.to_connect_columns("t", [b"\x00\x01", None])
    assert (list(schemas), list(values)) == ([OPTIONAL_BYTES_SCHEMA] * 2, [b"\x00\x01", None])


@pytest.mark.parametrize(
    "raw",
    [
        [b"plain", b"caf\xc3\xa9", b"cut \xe2\x82", b"\xf0\x9f", b"", b"bad \xff byte"],
        [b"a NUL \x00 inside", b"\xc3", b"b"],
        [None, None],
        [b"\xe2\x82\xac", None, b"\x00"],
    ],
    ids=["invalid-utf8", "a-nul-inside", "all-null", "some-null"],
)
def test_string_converter_reads_a_column_as_each_value_alone(raw: list[bytes | None]) -> None:
    converter = StringConverter()
    converter.configure({}, is_key=False)
    schemas, values = converter.to_connect_columns("t", raw)
    assert list(zip(schemas, values, strict=True)) == [converter.to_connect_data("t", r) for r in raw]


def test_string_converter_reads_a_column_in_the_configured_encoding() -> None:
    converter = StringConverter()
    converter.configure({"converter.encoding": "UTF-16"}, is_key=False)
    raw = ["café".encode("utf-16"), "x".encode("utf-16")]
    assert list(converter.to_connect_columns("t", raw)[1]) == ["café", "x"]


def configured(converter_class: type[StringConverter] | type[ByteArrayConverter], **settings: str) -> Any:
    converter = converter_class()
    converter.configure(settings, is_key=False)
    return converter


class Shouted(str):
    """A ``str`` whose ``str()`` is not its characters, as a ``str``-valued ``Enum``'s member."""

    def __str__(self) -> str:
        return self.upper()


@given(st.lists(st.one_of(st.text(), st.none(), st.integers(), st.text().map(Shouted)), max_size=10))
def test_string_converter_writes_a_column_as_each_value_alone(column: list[Any]) -> None:
    converter = configured(StringConverter)
    assert converter.from_connect_batch("t", None, column) == [
        converter.from_connect_data("t", None, value) for value in column
    ]


def test_string_converter_writes_a_str_subclass_in_a_column_as_its_text_alone() -> None:
    converter = configured(StringConverter)
    assert converter.from_connect_batch("t", None, [Shouted("quiet")]) == [b"QUIET"]


def test_string_converter_writes_a_column_in_the_configured_encoding() -> None:
    converter = configured(StringConverter, **{"converter.encoding": "UTF-16"})
    assert converter.from_connect_batch("t", STRING_SCHEMA, ["café", "x"]) == [
        "café".encode("utf-16"),
        "x".encode("utf-16"),
    ]


def test_string_converter_refuses_a_column_its_encoding_cannot_write() -> None:
    converter = configured(StringConverter, **{"converter.encoding": "ascii"})
    with pytest.raises(DataError, match="Cannot encode"):
        converter.from_connect_batch("t", STRING_SCHEMA, ["plain", "café"])


def test_byte_array_converter_writes_a_column_of_bytes_unchanged() -> None:
    converter = configured(ByteArrayConverter)
    assert converter.from_connect_batch("t", OPTIONAL_BYTES_SCHEMA, [b"\x00\x01", None]) == [
        b"\x00\x01",
        None,
    ]


def test_byte_array_converter_writes_a_column_of_other_buffers_as_bytes() -> None:
    converter = configured(ByteArrayConverter)
    assert converter.from_connect_batch("t", None, [bytearray(b"ab"), memoryview(b"c")]) == [b"ab", b"c"]


def test_byte_array_converter_refuses_a_column_with_a_value_that_is_not_bytes() -> None:
    converter = configured(ByteArrayConverter)
    with pytest.raises(DataError, match="not compatible with objects of type str"):
        converter.from_connect_batch("t", None, [b"ok", "text"])


def test_byte_array_converter_refuses_a_column_with_a_non_bytes_schema() -> None:
    converter = configured(ByteArrayConverter)
    with pytest.raises(DataError, match="Invalid schema type"):
        converter.from_connect_batch("t", STRING_SCHEMA, [b"ok"])
