"""JsonConverter's ``schema.content`` (KIP-1054): plain JSON payloads read with one given schema.

Each expectation was checked against Apache Kafka 4.3.1's own JsonConverter.
"""

import json

import pytest

from conveyor.convert import JsonConverter
from conveyor.data import DataError, SchemaBuilder, Struct, Type
from conveyor.errors import ConfigError

RECORD_SCHEMA = json.dumps(
    {
        "type": "struct",
        "name": "r",
        "fields": [
            {"field": "id", "type": "int32"},
            {"field": "name", "type": "string", "optional": True},
        ],
    }
)


def converter(**configs: object) -> JsonConverter:
    json_converter = JsonConverter()
    json_converter.configure({"schema.content": RECORD_SCHEMA, **configs}, is_key=False)
    return json_converter


def test_a_plain_payload_is_read_with_the_given_schema() -> None:
    read = converter().to_connect_data("t", b'{"id": 1, "name": "a"}')
    assert read.schema is not None
    assert (read.schema.type, read.schema.name) == (Type.STRUCT, "r")
    assert isinstance(read.value, Struct)
    assert (read.value.get("id"), read.value.get("name")) == (1, "a")


def test_an_envelope_is_read_as_a_payload_and_its_schema_ignored() -> None:
    with pytest.raises(DataError, match="id"):
        converter().to_connect_data("t", b'{"schema": {"type": "string"}, "payload": {"id": 2}}')


def test_a_batch_is_read_with_the_given_schema() -> None:
    read = converter().to_connect_batch("t", [b'{"id": 1}', None, b'{"id": 3}'])
    assert [None if item.value is None else item.value.get("id") for item in read] == [1, None, 3]


def test_a_null_message_stays_null() -> None:
    read = converter().to_connect_data("t", None)
    assert (read.schema, read.value) == (None, None)


def test_the_given_schema_is_ignored_without_schemas_enable() -> None:
    read = converter(**{"schemas.enable": False}).to_connect_data("t", b'{"id": 1}')
    assert (read.schema, read.value) == (None, {"id": 1})


def test_writing_still_puts_the_schema_in_the_envelope() -> None:
    schema = SchemaBuilder.struct().name("r").field("id", SchemaBuilder.int32().build()).build()
    written = converter().from_connect_data("t", schema, Struct(schema).put("id", 5))
    assert written is not None
    assert json.loads(written)["payload"] == {"id": 5}
    assert "schema" in json.loads(written)


@pytest.mark.parametrize("content", ["{bad", '{"type": "nope"}', "[1]", "null"])
def test_a_schema_content_that_is_no_schema_is_a_config_error_naming_the_key(content: str) -> None:
    with pytest.raises(ConfigError, match=r"schema\.content"):
        converter(**{"schema.content": content})


def test_values_read_with_a_given_schema_are_not_envelopes() -> None:
    assert not converter().reads_envelopes
    assert JsonConverter().reads_envelopes
