"""DropHeaders, InsertHeader and HeaderFrom, as Kafka's tests for them specify."""

from __future__ import annotations

import datetime as dt

import pytest

from conveyor.api import ConfigError
from conveyor.convert.json_text import to_float32
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Date,
    Headers,
    SchemaBuilder,
    Struct,
)
from conveyor.transforms import DropHeaders, HeaderFromKey, HeaderFromValue, InsertHeader

from .support import configured, value_record


def with_headers(*pairs: tuple[str, object]) -> Headers:
    headers = Headers()
    for key, value in pairs:
        headers.add(key, value, STRING_SCHEMA)
    return headers


def header_pairs(headers: Headers) -> list[tuple[str, object]]:
    return [(header.key, header.value) for header in headers]


def test_drop_headers_removes_every_header_with_a_listed_name() -> None:
    record = value_record(None, None).new_record(
        headers=with_headers(("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"))
    )
    result = configured(DropHeaders, {"headers": "a,c"}).apply(record)
    assert result is not None
    assert header_pairs(result.headers) == [("b", "2")]
    assert len(record.headers) == 4


def test_drop_headers_without_a_match_keeps_all() -> None:
    record = value_record(None, None).new_record(headers=with_headers(("a", "1")))
    result = configured(DropHeaders, {"headers": "x"}).apply(record)
    assert result is not None
    assert header_pairs(result.headers) == [("a", "1")]


def test_drop_headers_needs_names() -> None:
    with pytest.raises(ConfigError, match="headers"):
        configured(DropHeaders, {"headers": ""})


def test_insert_header_appends_a_string_header() -> None:
    record = value_record(None, None).new_record(headers=with_headers(("existing", "x")))
    result = configured(InsertHeader, {"header": "inserted", "value.literal": "inserted-value"}).apply(record)
    assert result is not None
    assert header_pairs(result.headers) == [("existing", "x"), ("inserted", "inserted-value")]
    assert result.headers.last_with_name("inserted").schema == STRING_SCHEMA
    assert len(record.headers) == 1


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("true", BOOLEAN_SCHEMA, True),
        ("42", INT8_SCHEMA, 42),
        ("70000", INT32_SCHEMA, 70_000),
        ("5000000000", INT64_SCHEMA, 5_000_000_000),
        ("1.5", FLOAT32_SCHEMA, 1.5),
        ("1.1", FLOAT32_SCHEMA, to_float32(1.1)),
        ("1e300", FLOAT64_SCHEMA, 1e300),
        ("2021-03-04", Date.SCHEMA, dt.date(2021, 3, 4)),
        ("plain text", STRING_SCHEMA, "plain text"),
    ],
)
def test_insert_header_infers_the_literal_type(literal: str, schema: object, value: object) -> None:
    result = configured(InsertHeader, {"header": "h", "value.literal": literal}).apply(
        value_record(None, None)
    )
    assert result is not None
    header = result.headers.last_with_name("h")
    assert (header.schema, header.value) == (schema, value)


def test_insert_header_requires_both_settings() -> None:
    with pytest.raises(ConfigError, match=r"value\.literal"):
        configured(InsertHeader, {"header": "h"})


def moving(operation: str, variant: type = HeaderFromValue) -> HeaderFromValue:
    return configured(
        variant, {"fields": "field1,field2", "headers": "inserted1,inserted2", "operation": operation}
    )


SCHEMA = (
    SchemaBuilder.struct()
    .name("s")
    .field("field1", STRING_SCHEMA)
    .field("field2", INT32_SCHEMA)
    .field("field3", STRING_SCHEMA)
    .build()
)


def struct_value() -> Struct:
    return Struct(SCHEMA).put("field1", "f1").put("field2", 2).put("field3", "f3")


def test_copy_with_schema_adds_headers_with_field_schemas_and_keeps_the_value() -> None:
    value = struct_value()
    result = moving("copy").apply(value_record(SCHEMA, value))
    assert result is not None
    assert result.value is value
    assert [(h.key, h.value, h.schema) for h in result.headers] == [
        ("inserted1", "f1", STRING_SCHEMA),
        ("inserted2", 2, INT32_SCHEMA),
    ]


def test_move_with_schema_removes_the_fields() -> None:
    result = moving("move").apply(value_record(SCHEMA, struct_value()))
    assert result is not None
    assert result.value_schema.name == "s"
    assert [field.name for field in result.value_schema.fields] == ["field3"]
    assert result.value.to_dict() == {"field3": "f3"}
    assert header_pairs(result.headers) == [("inserted1", "f1"), ("inserted2", 2)]


def test_move_schemaless_removes_the_entries() -> None:
    result = moving("move").apply(value_record(None, {"field1": "f1", "field2": 2, "field3": "f3"}))
    assert result is not None
    assert result.value == {"field3": "f3"}
    assert [(h.key, h.value, h.schema) for h in result.headers] == [
        ("inserted1", "f1", None),
        ("inserted2", 2, None),
    ]


def test_copy_from_the_key() -> None:
    record = value_record(None, "v", key={"field1": "k1", "field2": 7})
    result = moving("copy", HeaderFromKey).apply(record)
    assert result is not None
    assert result.key == {"field1": "k1", "field2": 7}
    assert header_pairs(result.headers) == [("inserted1", "k1"), ("inserted2", 7)]


def test_fields_and_headers_must_pair_up() -> None:
    with pytest.raises(ConfigError, match="same number of elements"):
        configured(HeaderFromValue, {"fields": "a,b", "headers": "h", "operation": "copy"})


def test_operation_must_be_move_or_copy() -> None:
    with pytest.raises(ConfigError, match="operation"):
        configured(HeaderFromValue, {"fields": "a", "headers": "h", "operation": "steal"})
