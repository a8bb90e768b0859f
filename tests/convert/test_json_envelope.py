"""JsonConverter against the envelope Kafka's JsonConverter writes and reads (vectors from its tests)."""

import datetime as dt
import decimal
import json

import pytest

from conveyor.convert import JsonConverter
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
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)

DECIMAL_SCHEMA_JSON = (
    '{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
    '"parameters":{"scale":"2"}}'
)


def converter(**configs: object) -> JsonConverter:
    json_converter = JsonConverter()
    json_converter.configure(configs, is_key=False)
    return json_converter


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        (BOOLEAN_SCHEMA, True, '{"schema":{"type":"boolean","optional":false},"payload":true}'),
        (INT8_SCHEMA, 12, '{"schema":{"type":"int8","optional":false},"payload":12}'),
        (INT16_SCHEMA, 12, '{"schema":{"type":"int16","optional":false},"payload":12}'),
        (INT32_SCHEMA, 12, '{"schema":{"type":"int32","optional":false},"payload":12}'),
        (INT64_SCHEMA, 4398046511104, '{"schema":{"type":"int64","optional":false},"payload":4398046511104}'),
        (FLOAT32_SCHEMA, 12.34, '{"schema":{"type":"float","optional":false},"payload":12.34}'),
        (FLOAT64_SCHEMA, 12.34, '{"schema":{"type":"double","optional":false},"payload":12.34}'),
        (
            STRING_SCHEMA,
            "foo-bar-baz",
            '{"schema":{"type":"string","optional":false},"payload":"foo-bar-baz"}',
        ),
        (
            BYTES_SCHEMA,
            b"test-string",
            '{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}',
        ),
    ],
)
def test_primitives_are_written_in_kafkas_envelope(schema: object, value: object, expected: str) -> None:
    assert converter().from_connect_data("topic", schema, value) == expected.encode()  # type: ignore[arg-type]


def test_struct_schema_lists_fields_with_their_names_last() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("x")
        .field("field1", BOOLEAN_SCHEMA)
        .field("field2", STRING_SCHEMA)
        .field("field3", STRING_SCHEMA)
        .field("field4", BOOLEAN_SCHEMA)
        .build()
    )
    value = (
        Struct(schema)
        .put("field1", True)
        .put("field2", "string2")
        .put("field3", "string3")
        .put("field4", False)
    )
    assert converter().from_connect_data("topic", schema, value) == (
        b'{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},'
        b'{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},'
        b'{"type":"boolean","optional":false,"field":"field4"}],"optional":false,"name":"x"},'
        b'"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}'
    )


def test_schema_metadata_follows_optional_in_kafkas_key_order() -> None:
    schema = (
        SchemaBuilder.string().optional().name("n").version(2).doc("d").parameter("k", "v").default_value("x")
    )
    assert converter().json_schema(schema.build()) == (
        '{"type":"string","optional":true,"name":"n","version":2,"doc":"d","parameters":{"k":"v"},"default":"x"}'
    )


def test_array_and_map_schemas_name_their_element_schemas() -> None:
    json_converter = converter()
    assert json_converter.json_schema(SchemaBuilder.array(INT32_SCHEMA).build()) == (
        '{"type":"array","items":{"type":"int32","optional":false},"optional":false}'
    )
    assert json_converter.json_schema(SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()) == (
        '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},'
        '"optional":false}'
    )


def test_map_with_string_keys_is_a_json_object() -> None:
    schema = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()
    written = converter(**{"schemas.enable": "false"}).from_connect_data(
        "t", schema, {"key1": 12, "key2": 15}
    )
    assert written == b'{"key1":12,"key2":15}'


def test_map_with_other_keys_is_an_array_of_pairs() -> None:
    schema = SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build()
    written = converter(**{"schemas.enable": "false"}).from_connect_data("t", schema, {1: 12, 2: 15})
    assert written == b"[[1,12],[2,15]]"


def test_decimal_is_base64_of_the_unscaled_bytes_by_default() -> None:
    written = converter().from_connect_data("t", Decimal.schema(2), decimal.Decimal("1.56"))
    assert written == ('{"schema":' + DECIMAL_SCHEMA_JSON + ',"payload":"AJw="}').encode()


def test_decimal_numeric_format_writes_a_json_number() -> None:
    written = converter(**{"decimal.format": "NUMERIC"}).from_connect_data(
        "t", Decimal.schema(2), decimal.Decimal("1.56")
    )
    assert written == ('{"schema":' + DECIMAL_SCHEMA_JSON + ',"payload":1.56}').encode()


@pytest.mark.parametrize("payload", ['"AJw="', "1.56"])
def test_decimal_is_read_from_either_format(payload: str) -> None:
    read = converter().to_connect_data(
        "t", ('{"schema":' + DECIMAL_SCHEMA_JSON + ',"payload":' + payload + "}").encode()
    )
    assert read == SchemaAndValue(Decimal.schema(2), decimal.Decimal("1.56"))


def test_date_time_and_timestamp_are_written_as_their_integers() -> None:
    json_converter = converter(**{"schemas.enable": "false"})
    assert json_converter.from_connect_data("t", Date.SCHEMA, dt.date(1970, 1, 11)) == b"10"
    assert json_converter.from_connect_data("t", Time.SCHEMA, dt.time(0, 0, 14, 400000)) == b"14400"
    instant = dt.datetime(2017, 1, 1, tzinfo=dt.UTC)
    assert json_converter.from_connect_data("t", Timestamp.SCHEMA, instant) == b"1483228800000"


def test_date_schema_vector_from_kafka_reads_back_a_date() -> None:
    envelope = (
        b'{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Date","version":1},"payload":10000}'
    )
    assert converter().to_connect_data("t", envelope) == SchemaAndValue(Date.SCHEMA, dt.date(1997, 5, 19))


def test_doubles_are_written_as_java_prints_them() -> None:
    json_converter = converter(**{"schemas.enable": "false"})
    assert json_converter.from_connect_data("t", FLOAT64_SCHEMA, 1e10) == b"1.0E10"
    assert json_converter.from_connect_data("t", FLOAT64_SCHEMA, 0.0001) == b"1.0E-4"
    assert json_converter.from_connect_data("t", FLOAT64_SCHEMA, float("nan")) == b'"NaN"'


def test_control_characters_are_escaped_with_upper_case_hex() -> None:
    written = converter(**{"schemas.enable": "false"}).from_connect_data(
        "t", STRING_SCHEMA, "a\x1fb\\u001f\n"
    )
    assert written == b'"a\\u001Fb\\\\u001f\\n"'


def test_non_ascii_text_is_written_as_utf8() -> None:
    written = converter(**{"schemas.enable": "false"}).from_connect_data("t", STRING_SCHEMA, "é")
    assert written == '"é"'.encode()


def test_null_value_without_schema_is_a_tombstone_both_ways() -> None:
    json_converter = converter()
    assert json_converter.from_connect_data("t", None, None) is None
    assert json_converter.to_connect_data("t", None) == SchemaAndValue(None, None)


def test_null_value_of_an_optional_schema_keeps_its_envelope() -> None:
    written = converter().from_connect_data("t", OPTIONAL_INT32_SCHEMA, None)
    assert written == b'{"schema":{"type":"int32","optional":true},"payload":null}'


def test_null_field_is_written_as_its_default() -> None:
    schema = (
        SchemaBuilder.struct().field("a", SchemaBuilder.int32().optional().default_value(7).build()).build()
    )
    written = converter(**{"schemas.enable": "false"}).from_connect_data("t", schema, Struct(schema))
    assert written == b'{"a":7}'


def test_null_field_stays_null_when_defaults_are_not_substituted() -> None:
    schema = (
        SchemaBuilder.struct().field("a", SchemaBuilder.int32().optional().default_value(7).build()).build()
    )
    json_converter = converter(**{"schemas.enable": "false", "replace.null.with.default": "false"})
    assert json_converter.from_connect_data("t", schema, Struct(schema)) == b'{"a":null}'


def test_required_null_field_is_refused() -> None:
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()
    with pytest.raises(DataError, match="required"):
        converter().from_connect_data("t", schema, Struct(schema))


def test_value_of_the_wrong_type_is_refused_naming_the_topic() -> None:
    with pytest.raises(DataError, match="topic=orders"):
        converter().from_connect_data("orders", INT32_SCHEMA, "not a number")


def test_schemaless_values_are_typed_as_connect_types_them() -> None:
    written = converter().from_connect_data("t", None, {"a": [1, 2.5, True, "s", None], "b": b"\x01"})
    assert written == b'{"schema":null,"payload":{"a":[1,2.5,true,"s",null],"b":"AQ=="}}'


def test_plain_json_is_read_without_a_schema() -> None:
    read = converter(**{"schemas.enable": "false"}).to_connect_data("t", b'{"a":[1,2.5],"b":{"c":null}}')
    assert read == SchemaAndValue(None, {"a": [1, 2.5], "b": {"c": None}})


def test_envelope_with_extra_fields_is_refused() -> None:
    with pytest.raises(DataError, match=r"schemas\.enable"):
        converter().to_connect_data("t", b'{"schema":null,"payload":1,"extra":2}')


def test_malformed_json_raises_a_data_error_naming_the_topic() -> None:
    with pytest.raises(DataError, match="topic=orders"):
        converter().to_connect_data("orders", b'{"schema":')


def test_data_error_can_name_partition_and_offset() -> None:
    with pytest.raises(DataError) as raised:
        converter().to_connect_data("orders", b"{")
    located = raised.value.located(partition=3, offset=42)
    assert "topic=orders, partition=3, offset=42" in str(located)


def test_struct_payload_missing_a_required_field_is_refused() -> None:
    envelope = (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}]},"payload":{}}'
    )
    with pytest.raises(DataError, match="required INT32"):
        converter().to_connect_data("t", envelope)


def test_schema_is_read_back_with_all_its_metadata() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("r")
        .version(3)
        .doc("doc")
        .parameter("p", "q")
        .optional()
        .field("a", SchemaBuilder.int64().default_value(5).build())
        .build()
    )
    json_converter = converter()
    value = Struct(schema).put("a", 9)
    assert json_converter.to_connect_data("t", json_converter.from_connect_data("t", schema, value)) == (
        SchemaAndValue(schema, value)
    )


def test_header_form_is_the_value_form() -> None:
    json_converter = converter()
    written = json_converter.from_connect_header("t", "h", INT32_SCHEMA, 5)
    assert written == json_converter.from_connect_data("t", INT32_SCHEMA, 5)
    assert json_converter.to_connect_header("t", "h", written) == SchemaAndValue(INT32_SCHEMA, 5)


def test_batch_output_equals_single_record_output() -> None:
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).field("b", STRING_SCHEMA).build()
    values = [Struct(schema).put("a", i).put("b", f"s{i}") for i in range(5)]
    json_converter = converter()
    assert json_converter.from_connect_batch("t", schema, values) == [
        json_converter.from_connect_data("t", schema, value) for value in values
    ]


def test_batch_read_equals_single_record_read_across_schemas() -> None:
    json_converter = converter()
    written = [
        json_converter.from_connect_data("t", INT32_SCHEMA, 1),
        json_converter.from_connect_data("t", STRING_SCHEMA, "x"),
        json_converter.from_connect_data("t", INT32_SCHEMA, 2),
        None,
    ]
    assert json_converter.to_connect_batch("t", written) == [
        SchemaAndValue(INT32_SCHEMA, 1),
        SchemaAndValue(STRING_SCHEMA, "x"),
        SchemaAndValue(INT32_SCHEMA, 2),
        SchemaAndValue(None, None),
    ]


def test_envelope_written_with_spaces_is_read_like_the_compact_one() -> None:
    spaced = json.dumps({"schema": {"type": "int32", "optional": False}, "payload": 5}).encode()
    assert converter().to_connect_data("t", spaced) == SchemaAndValue(INT32_SCHEMA, 5)


def test_a_struct_shared_by_a_batch_is_written_with_the_values_it_holds_each_time() -> None:
    source = SchemaBuilder.struct().field("db", STRING_SCHEMA).field("lsn", INT64_SCHEMA).build()
    envelope = SchemaBuilder.struct().field("id", INT32_SCHEMA).field("source", source).build()
    shared = Struct(source).put("db", "shop").put("lsn", 1)
    values = [Struct(envelope).put("id", n).put("source", shared) for n in range(2)]
    json_converter = converter()

    first = json_converter.from_connect_batch("t", envelope, values)
    shared.put("lsn", 2)
    again = json_converter.from_connect_batch("t", envelope, values[:1])

    payloads = [json.loads(text)["payload"]["source"]["lsn"] for text in [*first, *again]]
    assert payloads == [1, 1, 2]


def test_bytes_changed_in_place_are_written_as_they_are_now() -> None:
    schema = SchemaBuilder.struct().field("data", BYTES_SCHEMA).build()
    data = bytearray(b"a")
    value = Struct(schema).put("data", data)
    json_converter = converter()

    before = json_converter.from_connect_data("t", schema, value)
    data[0] = ord("b")
    after = json_converter.from_connect_data("t", schema, value)

    assert json.loads(before)["payload"]["data"] != json.loads(after)["payload"]["data"]
