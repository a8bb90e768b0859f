import copy

import pytest

from conveyor.data import (
    INT32_SCHEMA,
    STRING_SCHEMA,
    Headers,
    SinkColumns,
    SinkRecord,
    SourceRecord,
    TimestampType,
)


def make_source_record() -> SourceRecord:
    return SourceRecord(
        "lines",
        source_partition={"file": "a.txt"},
        source_offset={"position": 10},
        kafka_partition=2,
        key_schema=STRING_SCHEMA,
        key="k",
        value_schema=INT32_SCHEMA,
        value=5,
        timestamp=1000,
        headers=Headers().add("h", "v"),
    )


def test_source_record_keeps_each_keyword_in_its_field() -> None:
    record = make_source_record()
    assert (record.source_partition, record.source_offset) == ({"file": "a.txt"}, {"position": 10})
    assert (record.topic, record.kafka_partition, record.key, record.value) == ("lines", 2, "k", 5)


def test_source_record_takes_only_the_topic_positionally() -> None:
    with pytest.raises(TypeError):
        SourceRecord("t", {"file": "a.txt"})  # type: ignore[call-arg]


def test_sink_record_takes_only_the_topic_positionally() -> None:
    with pytest.raises(TypeError):
        SinkRecord("t", 0)  # type: ignore[call-arg]


def test_source_record_without_source_partition_or_offset_has_none() -> None:
    record = SourceRecord("t", value=1)
    assert (record.source_partition, record.source_offset, record.kafka_partition) == (None, None, None)


def test_new_record_replaces_only_the_given_fields_and_keeps_the_class() -> None:
    record = make_source_record()
    renamed = record.new_record(topic="other", value=6)
    assert isinstance(renamed, SourceRecord)
    assert (renamed.topic, renamed.value, renamed.key, renamed.timestamp) == ("other", 6, "k", 1000)
    assert renamed.source_offset == {"position": 10}


def test_new_record_can_set_a_field_to_none() -> None:
    assert make_source_record().new_record(key=None, key_schema=None).key is None


def test_new_record_headers_are_independent_of_the_original() -> None:
    record = make_source_record()
    record.new_record(value=1).headers.add("extra", 1)
    assert len(record.headers) == 1


def test_sink_record_originals_default_to_where_it_was_read() -> None:
    record = SinkRecord(topic="t", kafka_partition=3, value="v", kafka_offset=42)
    originals = (record.original_topic, record.original_kafka_partition, record.original_kafka_offset)
    assert originals == ("t", 3, 42)


def test_sink_record_new_record_keeps_offset_and_originals() -> None:
    record = SinkRecord(
        topic="t", kafka_partition=3, value="v", kafka_offset=42, timestamp=7, timestamp_type="CreateTime"
    )
    moved = record.new_record(topic="u", kafka_partition=0)
    assert (moved.kafka_offset, moved.original_topic, moved.original_kafka_partition) == (42, "t", 3)
    assert moved.timestamp_type == "CreateTime"
    assert moved.timestamp_type is TimestampType.CREATE_TIME


def test_records_with_equal_fields_are_equal() -> None:
    assert make_source_record() == make_source_record()
    assert make_source_record() != make_source_record().new_record(value=99)


def test_copy_gives_an_equal_record() -> None:
    record = make_source_record()
    assert copy.copy(record) == record


def test_sink_records_from_columns_are_those_built_one_by_one() -> None:
    records = SinkRecord.from_columns(
        "t",
        3,
        [7, 8],
        [None, STRING_SCHEMA],
        [None, "k"],
        [INT32_SCHEMA] * 2,
        [1, 2],
        [100, None],
        TimestampType.CREATE_TIME,
    )
    assert records == [
        SinkRecord(
            "t",
            kafka_partition=3,
            value_schema=INT32_SCHEMA,
            value=1,
            kafka_offset=7,
            timestamp=100,
            timestamp_type="CreateTime",
        ),
        SinkRecord(
            "t",
            kafka_partition=3,
            key_schema=STRING_SCHEMA,
            key="k",
            value_schema=INT32_SCHEMA,
            value=2,
            kafka_offset=8,
            timestamp=None,
            timestamp_type="CreateTime",
        ),
    ]
    assert (records[1].original_topic, records[1].original_kafka_partition) == ("t", 3)
    assert records[1].original_kafka_offset == 8


def test_sink_records_from_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        SinkRecord.from_columns(
            "t",
            0,
            [0, 1],
            [None] * 2,
            [None] * 2,
            [None] * 2,
            ["only one"],
            [0] * 2,
            TimestampType.CREATE_TIME,
        )


def test_sink_columns_give_records_with_the_headers_of_the_rows_that_have_some() -> None:
    columns = SinkColumns(
        "t",
        0,
        [0, 1],
        [None] * 2,
        [None] * 2,
        [None] * 2,
        ["a", "b"],
        [0, 0],
        2,
        [None, Headers().add("h", "v")],
    )
    records = columns.records()
    assert [r.value for r in records] == ["a", "b"]
    assert [[(h.key, h.value) for h in r.headers] for r in records] == [[], [("h", "v")]]


def test_records_of_sink_columns_have_headers_of_their_own() -> None:
    columns = SinkColumns("t", 0, [0], [None], [None], [None], ["a"], [0], 1, [Headers().add("h", "v")])
    columns.records()[0].headers.add("extra", 1)
    assert [len(r.headers) for r in columns.records()] == [1]


def test_for_values_builds_the_records_the_constructor_builds_for_each_value_and_offset() -> None:
    records = SourceRecord.for_values(
        "lines",
        ["one", "two"],
        [{"position": 4}, {"position": 8}],
        source_partition={"file": "a.txt"},
        value_schema=STRING_SCHEMA,
        timestamp=1000,
    )
    assert records == [
        SourceRecord(
            "lines",
            source_partition={"file": "a.txt"},
            source_offset={"position": end},
            value_schema=STRING_SCHEMA,
            value=value,
            timestamp=1000,
        )
        for value, end in (("one", 4), ("two", 8))
    ]
    assert not records[0].has_headers


def test_for_values_refuses_values_and_offsets_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="2 values but 1 source offsets"):
        SourceRecord.for_values("lines", ["one", "two"], [{"position": 4}])


class CountedSourceRecord(SourceRecord):
    """A record class whose own constructor counts the records it built."""

    __slots__ = ()
    built = 0

    def __init__(self, topic: str, **fields: object) -> None:
        super().__init__(topic, **fields)  # type: ignore[arg-type]
        type(self).built += 1


def test_for_values_of_a_subclass_builds_each_record_with_its_constructor() -> None:
    records = CountedSourceRecord.for_values("lines", ["one", "two"], [None, None])
    assert CountedSourceRecord.built == 2
    assert [type(record) for record in records] == [CountedSourceRecord, CountedSourceRecord]


def test_source_records_built_for_values_carry_each_values_key() -> None:
    key_schema = INT32_SCHEMA
    records = SourceRecord.for_values(
        "t", ["a", "b"], [{"n": 1}, {"n": 2}], key_schema=key_schema, keys=[1, 2], value_schema=STRING_SCHEMA
    )
    expected = [
        SourceRecord(
            "t", source_offset={"n": n}, key_schema=key_schema, key=n, value_schema=STRING_SCHEMA, value=v
        )
        for n, v in ((1, "a"), (2, "b"))
    ]
    assert [(r.key_schema, r.key, r.value, r.source_offset) for r in records] == [
        (r.key_schema, r.key, r.value, r.source_offset) for r in expected
    ]


def test_source_records_for_values_refuse_keys_of_another_count() -> None:
    with pytest.raises(ValueError, match="2 values but 1 keys"):
        SourceRecord.for_values("t", ["a", "b"], [None, None], keys=[1])
