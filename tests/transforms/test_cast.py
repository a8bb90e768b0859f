"""Cast, as Kafka's CastTest specifies it, plus round trips over generated values."""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.api import ConfigError
from conveyor.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)
from conveyor.transforms import CastKey, CastValue
from conveyor.transforms.cast_values import java_float_text, to_float32

from .support import configured, key_record, value_record


def cast_whole_value(spec: str, schema: Schema | None, value: object) -> tuple[object, object]:
    result = configured(CastValue, {"spec": spec}).apply(value_record(schema, value))
    assert result is not None
    return result.value_schema, result.value


@pytest.mark.parametrize("spec", ["", "foo:int8:extra", "foo:array", "foo:faketype", "int8,int32"])
def test_bad_spec_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError):
        configured(CastValue, {"spec": spec})


def test_missing_spec_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match="spec"):
        configured(CastValue, {})


@pytest.mark.parametrize(
    ("target", "schema", "expected"),
    [
        ("int8", INT8_SCHEMA, 42),
        ("int16", INT16_SCHEMA, 42),
        ("int32", INT32_SCHEMA, 42),
        ("int64", INT64_SCHEMA, 42),
        ("float32", FLOAT32_SCHEMA, 42.0),
        ("float64", FLOAT64_SCHEMA, 42.0),
        ("boolean", BOOLEAN_SCHEMA, True),
        ("string", STRING_SCHEMA, "42"),
    ],
)
def test_whole_int32_value_casts_to_every_output_type(target: str, schema: object, expected: object) -> None:
    assert cast_whole_value(target, INT32_SCHEMA, 42) == (schema, expected)


def test_narrowing_wraps_like_java() -> None:
    assert cast_whole_value("int8", INT32_SCHEMA, 300) == (INT8_SCHEMA, 44)
    assert cast_whole_value("int16", INT64_SCHEMA, -40_000) == (INT16_SCHEMA, 25_536)


def test_floats_truncate_toward_zero_and_saturate() -> None:
    assert cast_whole_value("int32", FLOAT64_SCHEMA, -42.9) == (INT32_SCHEMA, -42)
    assert cast_whole_value("int32", FLOAT64_SCHEMA, 1e20) == (INT32_SCHEMA, 2**31 - 1)
    assert cast_whole_value("int64", FLOAT64_SCHEMA, math.nan) == (INT64_SCHEMA, 0)


def test_strings_parse_strictly_to_numbers_and_booleans() -> None:
    assert cast_whole_value("int8", STRING_SCHEMA, "-42") == (INT8_SCHEMA, -42)
    assert cast_whole_value("float64", STRING_SCHEMA, "4.5") == (FLOAT64_SCHEMA, 4.5)
    assert cast_whole_value("boolean", STRING_SCHEMA, "TRUE") == (BOOLEAN_SCHEMA, True)
    assert cast_whole_value("boolean", STRING_SCHEMA, "yes") == (BOOLEAN_SCHEMA, False)


def test_out_of_range_string_fails() -> None:
    with pytest.raises(DataError, match="out of range"):
        cast_whole_value("int8", STRING_SCHEMA, "300")


def test_booleans_print_and_cast_as_java_does() -> None:
    assert cast_whole_value("string", BOOLEAN_SCHEMA, True) == (STRING_SCHEMA, "true")
    assert cast_whole_value("int32", BOOLEAN_SCHEMA, True) == (INT32_SCHEMA, 1)
    assert cast_whole_value("boolean", FLOAT64_SCHEMA, 0.5) == (BOOLEAN_SCHEMA, False)


def test_bytes_cast_to_base64_strings() -> None:
    assert cast_whole_value("string", BYTES_SCHEMA, b"\x00\x01hi") == (STRING_SCHEMA, "AAFoaQ==")


def test_bytes_cannot_cast_to_numbers() -> None:
    with pytest.raises(DataError, match="Unexpected type"):
        cast_whole_value("int32", BYTES_SCHEMA, b"\x01")


def test_logical_types_cast_to_their_encoded_numbers() -> None:
    moment = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    assert cast_whole_value("int64", Timestamp.SCHEMA, moment) == (INT64_SCHEMA, 1_609_459_200_000)
    assert cast_whole_value("int32", Date.SCHEMA, dt.date(1970, 1, 11)) == (INT32_SCHEMA, 10)
    assert cast_whole_value("int32", Time.SCHEMA, dt.time(0, 0, 1)) == (INT32_SCHEMA, 1000)


def test_logical_types_cast_to_iso_strings() -> None:
    moment = dt.datetime(2021, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)
    assert cast_whole_value("string", Timestamp.SCHEMA, moment) == (STRING_SCHEMA, "2021-01-02T03:04:05.006Z")
    assert cast_whole_value("string", Date.SCHEMA, dt.date(2021, 1, 2)) == (STRING_SCHEMA, "2021-01-02")


def test_decimals_cast_to_numbers_and_strings() -> None:
    assert cast_whole_value("int32", Decimal.schema(2), decimal.Decimal("42.99")) == (INT32_SCHEMA, 42)
    assert cast_whole_value("string", Decimal.schema(2), decimal.Decimal("42.99")) == (STRING_SCHEMA, "42.99")


def test_schemaless_whole_value_cast() -> None:
    assert cast_whole_value("int8", None, 42) == (None, 42)


def test_null_value_passes_through() -> None:
    record = value_record(OPTIONAL_INT32_SCHEMA, None)
    assert configured(CastValue, {"spec": "int8"}).apply(record) is record


def test_struct_fields_are_cast_and_others_kept_with_optionality() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("s")
        .field("int8", INT8_SCHEMA)
        .field("optional", OPTIONAL_INT32_SCHEMA)
        .field("string", STRING_SCHEMA)
        .field("kept", STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("int8", 8).put("string", "42").put("kept", "x")
    transform = configured(CastValue, {"spec": "int8:int32,optional:int64,string:int16"})

    result = transform.apply(value_record(schema, value))

    assert result is not None
    updated = result.value_schema
    assert updated.name == "s"
    assert [updated.field(n).schema.type for n in ("int8", "optional", "string", "kept")] == [
        Type.INT32,
        Type.INT64,
        Type.INT16,
        Type.STRING,
    ]
    assert updated.field("optional").schema.optional
    assert result.value.to_dict() == {"int8": 8, "optional": None, "string": 42, "kept": "x"}


def test_field_defaults_are_cast_too() -> None:
    field_schema = SchemaBuilder.int32().optional().default_value(7).build()
    schema = SchemaBuilder.struct().field("a", field_schema).build()
    result = configured(CastValue, {"spec": "a:string"}).apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value_schema.field("a").schema.default == "7"


def test_schemaless_map_fields_are_cast() -> None:
    transform = configured(CastKey, {"spec": "a:string,b:int8,missing:int8"})
    result = transform.apply(key_record(None, {"a": 1.5, "b": "12", "c": True}))
    assert result is not None
    assert result.key == {"a": "1.5", "b": 12, "c": True, "missing": None}


def test_struct_fields_cannot_be_cast() -> None:
    inner = SchemaBuilder.struct().field("x", INT32_SCHEMA).build()
    schema = SchemaBuilder.struct().field("inner", inner).build()
    value = Struct(schema).put("inner", Struct(inner).put("x", 1))
    with pytest.raises(DataError, match="does not support casting from STRUCT"):
        configured(CastValue, {"spec": "inner:string"}).apply(value_record(schema, value))


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (42.0, "42.0"),
        (1.5, "1.5"),
        (1e7, "1.0E7"),
        (1.0e-4, "1.0E-4"),
        (0.001, "0.001"),
        (-0.0, "-0.0"),
        (123456.789, "123456.789"),
        (1.2345e-10, "1.2345E-10"),
        (math.inf, "Infinity"),
    ],
)
def test_floats_print_as_java_double_to_string(number: float, text: str) -> None:
    assert java_float_text(number) == text


def test_float32_prints_its_shortest_single_precision_form() -> None:
    assert java_float_text(to_float32(1.1), single_precision=True) == "1.1"


int32s = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@given(number=int32s)
def test_int32_round_trips_through_string(number: int) -> None:
    _, text = cast_whole_value("string", INT32_SCHEMA, number)
    assert cast_whole_value("int32", STRING_SCHEMA, text) == (INT32_SCHEMA, number)


@given(number=int32s)
def test_int32_round_trips_through_int64_and_float64(number: int) -> None:
    _, widened = cast_whole_value("int64", INT32_SCHEMA, number)
    _, as_float = cast_whole_value("float64", INT64_SCHEMA, widened)
    assert cast_whole_value("int32", FLOAT64_SCHEMA, as_float) == (INT32_SCHEMA, number)


@given(number=st.floats(allow_nan=False, allow_infinity=False))
def test_float64_round_trips_through_string(number: float) -> None:
    _, text = cast_whole_value("string", FLOAT64_SCHEMA, number)
    assert cast_whole_value("float64", STRING_SCHEMA, text) == (FLOAT64_SCHEMA, number)


@given(number=st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_round_trips_through_string(number: float) -> None:
    _, text = cast_whole_value("string", FLOAT32_SCHEMA, number)
    assert cast_whole_value("float32", STRING_SCHEMA, text) == (FLOAT32_SCHEMA, number)


@given(number=st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_narrowing_to_int8_keeps_the_low_byte(number: int) -> None:
    _, narrowed = cast_whole_value("int8", INT64_SCHEMA, number)
    assert isinstance(narrowed, int)
    assert -128 <= narrowed <= 127
    assert (narrowed - number) % 256 == 0
