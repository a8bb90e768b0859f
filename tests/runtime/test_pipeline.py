"""The record pipeline: transforms and converters between Connect records and log bytes, batch by batch."""

from __future__ import annotations

from conveyor.convert.encoded_json import EncodedJson, default_converter
from conveyor.data import (
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    TimestampType,
)
from conveyor.log import RecordBatch
from conveyor.pipeline.error_handling import ErrorHandler, ErrorPolicy
from conveyor.pipeline.record_pipeline import RecordPipeline
from conveyor.settings.worker_config import WorkerConfig

from .support import CONNECTOR, HEADER_CONVERTER, JSON_CONVERTER, STRING_CONVERTER

WORKER = WorkerConfig.from_props(
    {
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "header.converter": HEADER_CONVERTER,
    }
)
JSON_VALUES = {"value.converter": JSON_CONVERTER, "value.converter.schemas.enable": "false"}


def pipeline(tolerate: bool = False, **config: str) -> RecordPipeline:
    handler = ErrorHandler(ErrorPolicy(tolerance_all=tolerate), CONNECTOR, 0)
    return RecordPipeline.for_connector(config, WORKER, handler)


def record(
    topic: str,
    value: object,
    *,
    key: object = None,
    partition: int | None = None,
    value_schema: Schema | None = None,
    headers: Headers | None = None,
) -> SourceRecord:
    return SourceRecord(
        topic=topic,
        source_partition=None,
        source_offset=None,
        kafka_partition=partition,
        key=key,
        value_schema=value_schema,
        value=value,
        headers=headers,
    )


def test_records_are_grouped_by_topic_and_partition_in_poll_order() -> None:
    records = [record("a", "1"), record("b", "2"), record("a", "3"), record("a", "4", partition=1)]
    batches = pipeline().to_log(records)
    assert [(b.topic, b.partition, b.values) for b in batches] == [
        ("a", None, [b"1", b"3"]),
        ("b", None, [b"2"]),
        ("a", 1, [b"4"]),
    ]


def test_keys_and_values_go_through_their_converters() -> None:
    converted = pipeline(**JSON_VALUES).to_log([record("a", {"n": 1}, key="k")])[0]
    assert (converted.keys, converted.values) == ([b"k"], [b'{"n":1}'])


def test_transforms_apply_before_conversion() -> None:
    routed = pipeline(
        transforms="route",
        **{
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-routed",
        },
    ).to_log([record("a", "1")])
    assert [(batch.topic, batch.values) for batch in routed] == [("a-routed", [b"1"])]


def test_records_with_different_schemas_in_one_batch_are_converted_each_by_its_schema() -> None:
    records = [record("a", 1, value_schema=INT32_SCHEMA), record("a", "x", value_schema=STRING_SCHEMA)]
    converted = pipeline(**JSON_VALUES).to_log(records)[0]
    assert converted.values == [b"1", b'"x"']


def test_a_record_the_converter_rejects_is_dropped_alone_when_tolerated() -> None:
    records = [record("a", n if n != 1 else "one", value_schema=INT32_SCHEMA) for n in range(3)]
    handler_pipeline = pipeline(tolerate=True, **JSON_VALUES)
    converted = handler_pipeline.to_log(records)[0]
    assert converted.values == [b"0", b"2"]
    assert [r.value for r in converted.records] == [0, 2]
    assert handler_pipeline.errors.total_records_skipped == 1


def test_headers_are_converted_by_the_header_converter() -> None:
    headers = Headers().add("origin", "here").add("count", 3, INT32_SCHEMA)
    converted = pipeline().to_log([record("a", "1", headers=headers)])[0]
    assert converted.headers == [[("origin", b"here"), ("count", b"3")]]


def test_consumed_batches_become_sink_records_with_their_coordinates() -> None:
    batch = RecordBatch(
        topic="in",
        partition=2,
        offsets=[5, 6],
        keys=[b"k5", None],
        values=[b'{"n":5}', b'{"n":6}'],
        headers=[[("origin", b"here")], []],
        timestamps=[1000, 2000],
        next_offset=7,
    )
    records = pipeline(**JSON_VALUES).from_log(batch)
    assert [(r.topic, r.kafka_partition, r.kafka_offset, r.key, r.value, r.timestamp) for r in records] == [
        ("in", 2, 5, "k5", {"n": 5}, 1000),
        ("in", 2, 6, None, {"n": 6}, 2000),
    ]
    assert [(h.key, h.value) for h in records[0].headers] == [("origin", "here")]


def test_a_consumed_record_the_converter_rejects_is_dropped_alone_when_tolerated() -> None:
    batch = RecordBatch("in", 0, [0, 1, 2], [None] * 3, [b"0", b"not json", b"2"], [[], [], []], [0] * 3, 3)
    records = pipeline(tolerate=True, **JSON_VALUES).from_log(batch)
    assert [(r.kafka_offset, r.value) for r in records] == [(0, 0), (2, 2)]


def test_consumed_records_carry_every_sink_record_field() -> None:
    batch = RecordBatch("in", 1, [4], [b"k"], [b"v"], [[]], [1000], 5)
    assert pipeline().from_log(batch) == [
        SinkRecord(
            "in",
            kafka_partition=1,
            key_schema=OPTIONAL_STRING_SCHEMA,
            key="k",
            value_schema=OPTIONAL_STRING_SCHEMA,
            value="v",
            kafka_offset=4,
            timestamp=1000,
            timestamp_type=TimestampType.CREATE_TIME,
        )
    ]


def test_consumed_records_go_through_the_transforms() -> None:
    batch = RecordBatch("in", 0, [0, 1], [None] * 2, [b"a", b"b"], [[], []], [0] * 2, 2)
    routed = pipeline(
        transforms="route",
        **{
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "$1-routed",
        },
    ).from_log(batch)
    assert [(r.topic, r.original_topic, r.value) for r in routed] == [
        ("in-routed", "in", "a"),
        ("in-routed", "in", "b"),
    ]


JSON_BOTH = {"key.converter": JSON_CONVERTER, "value.converter": JSON_CONVERTER}
PERSON = SchemaBuilder.struct().name("person").field("name", STRING_SCHEMA).field("age", INT32_SCHEMA).build()


def encoded_person(name: str, age: int) -> tuple[Struct, EncodedJson]:
    """A person struct and what a default JsonConverter writes for it."""
    person = Struct(PERSON).put("name", name).put("age", age)
    written = default_converter(False).from_connect_data("t", PERSON, person)
    assert written is not None
    return person, EncodedJson(written)


def test_default_json_converters_write_encoded_json_values_as_they_are() -> None:
    _, encoded = encoded_person("ada", 36)
    json_pipeline = pipeline(**JSON_BOTH)
    batch = json_pipeline.to_log([record("t", encoded, value_schema=PERSON)])[0]
    assert json_pipeline.writes_json_unchanged()
    assert batch.values == [encoded.data]


def test_other_converters_get_the_connect_value_read_back_from_encoded_json() -> None:
    person, encoded = encoded_person("bob", 7)
    strings = pipeline()
    polled = record("t", encoded, value_schema=PERSON)
    batch = strings.to_log([polled])[0]
    assert not strings.writes_json_unchanged()
    assert polled.value == person
    assert batch.values == strings.to_log([record("t", person, value_schema=PERSON)])[0].values


def test_json_converters_with_other_settings_or_a_transformation_do_not_take_encoded_json() -> None:
    numeric = pipeline(**JSON_BOTH, **{"value.converter.decimal.format": "NUMERIC"})
    routed = pipeline(
        **JSON_BOTH,
        **{
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "t",
            "transforms.route.replacement": "u",
        },
    )
    assert not numeric.writes_json_unchanged()
    assert not routed.writes_json_unchanged()


def test_a_batch_whose_records_have_no_timestamp_leaves_stamping_to_the_producer() -> None:
    converted = pipeline().to_log([record("a", "1"), record("a", "2")])[0]
    assert converted.timestamps is None


def test_a_batch_with_some_timestamps_stamps_the_other_records_at_conversion() -> None:
    stamped = record("a", "1").new_record(timestamp=5)
    converted = pipeline().to_log([stamped, record("a", "2")])[0]
    assert converted.timestamps is not None
    assert converted.timestamps[0] == 5 and converted.timestamps[1] > 5


def test_a_batch_whose_keys_are_all_null_has_no_key_column() -> None:
    converted = pipeline().to_log([record("a", "1"), record("a", "2")])[0]
    assert converted.keys is None


def test_a_batch_with_one_key_keeps_the_null_keys_of_the_others() -> None:
    converted = pipeline().to_log([record("a", "1"), record("a", "2", key="k")])[0]
    assert converted.keys == [None, b"k"]
