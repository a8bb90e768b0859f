"""JsonConverter decodes a batch of struct envelopes column by column, with the values and errors of
decoding them one by one."""

import json
from typing import Any

import pytest

from conveyor.convert import JsonConverter
from conveyor.data import DataError, StructColumn

SCHEMA = {
    "type": "struct",
    "name": "shop.Customer",
    "fields": [
        {"field": "id", "type": "int64"},
        {"field": "age", "type": "int8", "optional": True},
        {"field": "amount", "type": "double"},
        {"field": "active", "type": "boolean", "optional": True, "default": True},
        {"field": "name", "type": "string"},
    ],
}
GOOD = {"id": 1, "age": 30, "amount": 2.5, "active": False, "name": "ann"}


def converter() -> JsonConverter:
    json_converter = JsonConverter()
    json_converter.configure({}, is_key=False)
    return json_converter


def envelope(payload: Any) -> bytes:
    return ('{"schema":' + json.dumps(SCHEMA, separators=(",", ":")) + ',"payload":' + payload + "}").encode()


def batch(payload: str) -> list[bytes]:
    """Two good envelopes around one with ``payload``."""
    good = envelope(json.dumps(GOOD))
    return [good, envelope(payload), good]


def one_by_one(values: list[bytes]) -> list[Any]:
    json_converter = converter()
    return [json_converter.to_connect_data("t", value).value for value in values]


def as_columns(values: list[bytes]) -> list[Any]:
    """After the first envelope of the schema has been read, as the sink's loop reads batches."""
    json_converter = converter()
    json_converter.to_connect_data("t", values[0])
    schemas, decoded = json_converter.to_connect_columns("t", values)
    assert all(schema is not None and schema.name == "shop.Customer" for schema in schemas)
    return list(decoded)


@pytest.mark.parametrize(
    "payload",
    [
        '{"id":7,"age":null,"amount":3,"active":null,"name":"b\\tc"}',
        '{"id":9223372036854775807,"age":-128,"amount":1e308,"active":true,"name":"","extra":1}',
        '{"id":7.0,"age":1,"amount":0.1,"name":"no active"}',
        '{"id":7,"age":1,"amount":"NaN","active":true,"name":"x"}',
        '{"id":7,"age":1,"amount":1.000000000000000000001,"active":true,"name":"x"}',
        '{"id":7,"age":1,"amount":1,"active":true,"name":"lone \\ud800 surrogate"}',
    ],
)
def test_a_batch_of_envelopes_decodes_to_the_structs_of_one_by_one(payload: str) -> None:
    values = batch(payload)

    decoded = as_columns(values)

    assert decoded == one_by_one(values)
    assert [type(struct.get("amount")) for struct in decoded] == [float, float, float]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('{"id":7,"age":128,"amount":1,"active":true,"name":"x"}', "out of range for INT8"),
        ('{"id":1180591620717411303424,"age":1,"amount":1,"active":true,"name":"x"}', "range for INT64"),
        ('{"id":null,"age":1,"amount":1,"active":true,"name":"x"}', "Invalid null value for required INT64"),
        ('{"id":7,"age":1,"amount":NaN,"active":true,"name":"x"}', "Expected a number"),
        ('{"id":7,"age":1,"amount":1,"active":1,"name":"x"}', "Expected a boolean"),
        ('{"id":7,"age":1,"amount":1,"active":true,"name":5}', "Expected a string"),
        ("[1,2]", "Structs should be encoded as JSON objects"),
        ('{"id":7}} ', "serialization error"),
    ],
)
def test_a_batch_with_a_value_that_does_not_fit_fails_as_one_by_one(payload: str, reason: str) -> None:
    values = batch(payload)
    with pytest.raises(DataError, match=reason):
        one_by_one(values)

    with pytest.raises(DataError, match=reason):
        as_columns(values)


def test_a_decoded_batch_gives_its_field_columns_without_building_structs() -> None:
    values = batch(json.dumps(GOOD))
    json_converter = converter()
    json_converter.to_connect_data("t", values[0])

    _, decoded = json_converter.to_connect_columns("t", values)

    assert isinstance(decoded, StructColumn)
    assert decoded.field_columns() == [[1] * 3, [30] * 3, [2.5] * 3, [False] * 3, ["ann"] * 3]


def test_the_first_batch_of_a_schema_is_decoded_column_by_column() -> None:
    values = batch(json.dumps(GOOD))

    schemas, decoded = converter().to_connect_columns("t", values)

    assert isinstance(decoded, StructColumn)
    assert list(decoded) == one_by_one(values)
    assert all(schema is not None and schema.name == "shop.Customer" for schema in schemas)


def test_a_batch_whose_first_envelope_does_not_decode_fails_as_one_by_one() -> None:
    values = [envelope('{"id":"seven"}'), *batch(json.dumps(GOOD))]

    with pytest.raises(DataError, match="Expected an integer for INT64 in JSON but found str"):
        converter().to_connect_columns("t", values)


@pytest.mark.parametrize(
    "odd",
    [None, b'{"schema":null,"payload":7}', bytearray(envelope(json.dumps(GOOD)))],
    ids=["null", "another envelope", "bytearray"],
)
def test_a_batch_with_a_value_of_another_kind_decodes_as_one_by_one(odd: bytes | None) -> None:
    good = envelope(json.dumps(GOOD))
    values = [good, odd, good]
    json_converter = converter()
    json_converter.to_connect_data("t", good)

    schemas, decoded = json_converter.to_connect_columns("t", values)  # type: ignore[arg-type]

    expected = [converter().to_connect_data("t", value) for value in values]  # type: ignore[arg-type]
    assert list(decoded) == [item.value for item in expected]
    assert list(schemas) == [item.schema for item in expected]
