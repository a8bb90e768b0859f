"""MaskField, as Kafka's MaskFieldTest specifies it."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from conveyor.api import ConfigError
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataError,
    Date,
    Decimal,
    SchemaBuilder,
    Struct,
    Timestamp,
)
from conveyor.transforms import MaskFieldKey, MaskFieldValue

from .support import configured, value_record

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def masking(fields: str, replacement: str | None = None) -> MaskFieldValue:
    props = {"fields": fields}
    if replacement is not None:
        props["replacement"] = replacement
    return configured(MaskFieldValue, props)


def test_schemaless_fields_become_the_null_value_of_their_type() -> None:
    value = {
        "magic": 42,
        "bool": True,
        "float": 4.5,
        "decimal": decimal.Decimal("42.2"),
        "string": "55.121.20.20",
        "date": dt.date(2020, 5, 1),
        "timestamp": dt.datetime(2020, 5, 1, 3, tzinfo=dt.UTC),
        "list": [1, 2],
        "map": {"a": 1},
        "kept": "visible",
    }
    masked = ",".join(name for name in value if name != "kept")

    result = masking(masked).apply(value_record(None, value))

    assert result is not None
    assert result.value == {
        "magic": 0,
        "bool": False,
        "float": 0.0,
        "decimal": decimal.Decimal(0),
        "string": "",
        "date": EPOCH.date(),
        "timestamp": EPOCH,
        "list": [],
        "map": {},
        "kept": "visible",
    }


def test_with_schema_fields_become_the_null_value_of_their_schema_type() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("int8", INT8_SCHEMA)
        .field("bool", BOOLEAN_SCHEMA)
        .field("float64", FLOAT64_SCHEMA)
        .field("string", STRING_SCHEMA)
        .field("decimal", Decimal.schema(2))
        .field("date", Date.SCHEMA)
        .field("ts", Timestamp.SCHEMA)
        .field("array", SchemaBuilder.array(INT32_SCHEMA).build())
        .build()
    )
    value = (
        Struct(schema)
        .put("int8", 8)
        .put("bool", True)
        .put("float64", 1.5)
        .put("string", "secret")
        .put("decimal", decimal.Decimal("1.25"))
        .put("date", dt.date(2021, 1, 2))
        .put("ts", dt.datetime(2021, 1, 2, tzinfo=dt.UTC))
        .put("array", [1, 2])
    )

    result = masking("int8,bool,float64,string,decimal,date,ts,array").apply(value_record(schema, value))

    assert result is not None
    assert result.value_schema is schema
    assert result.value.to_dict() == {
        "int8": 0,
        "bool": False,
        "float64": 0.0,
        "string": "",
        "decimal": decimal.Decimal(0),
        "date": EPOCH.date(),
        "ts": EPOCH,
        "array": [],
    }


def test_null_fields_stay_null() -> None:
    schema = SchemaBuilder.struct().field("s", OPTIONAL_STRING_SCHEMA).build()
    result = masking("s").apply(value_record(schema, Struct(schema)))
    assert result is not None
    assert result.value.get("s") is None


def test_numeric_replacement_is_parsed_to_the_field_type() -> None:
    result = masking("magic,float", "123").apply(value_record(None, {"magic": 42, "float": 1.5}))
    assert result is not None
    assert result.value == {"magic": 123, "float": 123.0}


def test_string_replacement_replaces_strings() -> None:
    result = masking("s", "***").apply(value_record(None, {"s": "secret"}))
    assert result is not None
    assert result.value == {"s": "***"}


def test_non_numeric_replacement_for_a_number_fails() -> None:
    with pytest.raises(DataError, match="Unable to convert"):
        masking("magic", "foo").apply(value_record(None, {"magic": 42}))


def test_out_of_range_replacement_for_int8_fails() -> None:
    schema = SchemaBuilder.struct().field("b", INT8_SCHEMA).build()
    with pytest.raises(DataError, match="Unable to convert"):
        masking("b", "300").apply(value_record(schema, Struct(schema).put("b", 1)))


def test_replacement_for_a_boolean_fails() -> None:
    with pytest.raises(DataError, match="Cannot mask value of type bool with custom replacement"):
        masking("flag", "1").apply(value_record(None, {"flag": True}))


def test_empty_replacement_is_rejected() -> None:
    with pytest.raises(ConfigError, match="replacement"):
        masking("s", "")


def test_key_variant_masks_the_key() -> None:
    transform = configured(MaskFieldKey, {"fields": "id"})
    result = transform.apply(value_record(None, None, key={"id": 7}))
    assert result is not None
    assert result.key == {"id": 0}
